"""The interpreter's side of option files given by path (``sources.common.option_files``):
the working directory ``cd``/``pushd``/``popd`` set, and the file a launch names when the
script did not write it."""

from __future__ import annotations

import os
import re

from servelint.model import Token
from servelint.sources.common.option_files import (
    CWD_VAR,
    MAX_OPTION_FILE_BYTES,
    change_dir,
    find,
)
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell.flows import unknown_var
from servelint.sources.shell.values import Field, Piece, State, Var, VFile, is_symbolic, text_of

STACK_VAR = "@dirstack"  # what pushd left, like CWD_VAR a name no script can spell
_SEP = "\x1f"


def track_cd(cmd: str, args: list[Field], st: State, launching_file: str) -> None:
    """``cd DIR`` / ``pushd DIR`` move the working directory, ``popd`` goes back to where the
    matching ``pushd`` was; ``cd`` alone, ``cd -`` and a directory the script does not fix
    make it unknown."""
    if cmd == "popd":
        _popd(st)
        return
    words = [a for a in args if not a.text.startswith("-") or a.text == "-"]
    cwd, known = current_dir(st)
    if cmd == "pushd":
        stack = _stack(st)
        st.vars[STACK_VAR] = (
            Var(scalar=(Piece(_SEP.join([*stack, cwd or ""])),))
            if known and stack is not None
            else unknown_var(STACK_VAR)
        )
    if len(words) != 1 or words[0].symbolic or not known:
        st.vars[CWD_VAR] = unknown_var(CWD_VAR)
        return
    new = change_dir(cwd, words[0].text, launching_file)
    st.vars[CWD_VAR] = Var(scalar=(Piece(new),)) if new is not None else unknown_var(CWD_VAR)


def _stack(st: State) -> list[str] | None:
    """The directories ``pushd`` left (``""``: where the script started); None if unknown."""
    var = st.vars.get(STACK_VAR)
    if var is None:
        return []
    pieces = var.scalar_value()
    return None if is_symbolic(pieces) else text_of(pieces).split(_SEP)


def _popd(st: State) -> None:
    stack = _stack(st)
    if not stack:  # unknown, or nothing pushed: popd fails or goes where we cannot know
        st.vars[CWD_VAR] = unknown_var(CWD_VAR)
        return
    back, rest = stack[-1], stack[:-1]
    if back:
        st.vars[CWD_VAR] = Var(scalar=(Piece(back),))
    else:
        st.vars.pop(CWD_VAR, None)
    if rest:
        st.vars[STACK_VAR] = Var(scalar=(Piece(_SEP.join(rest)),))
    else:
        st.vars.pop(STACK_VAR, None)


def current_dir(st: State) -> tuple[str | None, bool]:
    """(the directory the script moved to, or None if it did not move; whether it is known)."""
    var = st.vars.get(CWD_VAR)
    if var is None:
        return None, True
    pieces = var.scalar_value()
    return (None, False) if is_symbolic(pieces) else (text_of(pieces), True)


def default_path(text: str, st: State) -> tuple[str | None, list[str], str]:
    """The name a symbolic option-file path gives when the script runs as written, nothing
    set by its caller: a ``${VAR:-default}`` / ``${VAR-default}`` whose VAR the script never
    assigns takes its default, a VAR the script sets to a literal its value, and a VAR the
    script sets with its own default (``export X=${X:-"$HOME_DIR/x.yaml"}``, as Dynamo's
    launch scripts do) that default, read the same way. (the name, the variables whose
    default it took, ""); (None, the variable that decides it, why) when the script cannot
    tell (a variable without a default it does not set, one set to a value it cannot know);
    (None, [], "") for what it does not model (a command substitution, quotes, a glob)."""
    defaults: list[str] = []
    try:
        name = _plain(text, st, defaults, frozenset(), 0)
    except _Unknown as exc:
        return None, [exc.name] if exc.name else [], exc.why
    if not name or any(c in name for c in "$`*?[") or not defaults:
        return None, [], ""
    return name, defaults, ""


class _Unknown(Exception):
    def __init__(self, name: str = "", why: str = "") -> None:
        self.name, self.why = name, why


_NAME = re.compile(r"[A-Za-z_]\w*")
_PARAM = re.compile(r"(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?-)(?P<word>.*))?", re.S)


def _plain(text: str, st: State, defaults: list[str], unset: frozenset[str], depth: int) -> str:
    """``text`` expanded as bash does on a plain run (double quotes removed); ``unset``:
    variables read before the assignment being expanded (its own ``${X:-...}``)."""
    if depth > 8:
        raise _Unknown()
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
        elif c in "'`\\":
            raise _Unknown()
        elif c != "$":
            out.append(c)
            i += 1
        elif text.startswith("${", i):
            end = _closing(text, i + 2)
            m = _PARAM.fullmatch(text, i + 2, end) if end > 0 else None
            if m is None:
                raise _Unknown()
            out.append(_param(m.group("name"), m.group("op"), m.group("word") or "", st,
                              defaults, unset, depth))
            i = end + 1
        else:
            m = _NAME.match(text, i + 1)
            if m is None:  # $(cmd), $1, $@, ...
                raise _Unknown()
            out.append(_param(m.group(0), None, "", st, defaults, unset, depth))
            i = m.end()
    return "".join(out)


def _closing(text: str, start: int) -> int:
    """The index of the ``}`` closing a ``${`` whose name starts at ``start`` (-1: none)."""
    depth = 1
    for k in range(start, len(text)):
        if text.startswith("${", k):
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _param(
    name: str, op: str | None, word: str, st: State, defaults: list[str], unset: frozenset[str],
    depth: int,
) -> str:
    var = None if name in unset else st.vars.get(name)
    if var is None:  # unset on a plain run
        if op is None:
            raise _Unknown(name, "which the script does not set")
        defaults.append(name)
        return _plain(word, st, defaults, unset, depth + 1)
    pieces = var.scalar_value()
    if not is_symbolic(pieces):
        value = text_of(pieces)
    elif var.external:
        raise _Unknown(name, "which the caller's environment sets")
    else:
        # only the script's own spelling of a default (``X=${X:-...}``) is read; any other
        # value it cannot know (a command's output, branches that differ) stays unknown
        spelled = text_of(pieces)
        own = re.compile(r"\$\{" + name + r":?-")
        if not all(not p.symbolic or own.match(p.text) for p in pieces):
            raise _Unknown(name, "which the script sets to a value it cannot know")
        try:
            value = _plain(spelled, st, defaults, unset | {name}, depth + 1)
        except _Unknown as exc:
            raise (exc if exc.name else _Unknown(
                name, "which the script sets to a value it cannot know")) from None
    if op == ":-" and not value:
        defaults.append(name)
        return _plain(word, st, defaults, unset, depth + 1)
    return value


def disk_file(
    interp, value: Token, st: State, src, node, reads_itself: bool = False
) -> tuple[VFile | None, str | None]:
    """(the lines of the option file ``value`` names, found on disk; the path read), with a
    problem recorded when it cannot be read or nothing provides it. ``reads_itself``: the
    engine's argv model reads the file's content (SGLang's config merge), so a file found is
    handed on by path whatever its content, and only "nothing provides it" is said here."""
    cwd, known = current_dir(st)
    name, defaults, why = (
        default_path(value.text, st) if value.symbolic else (value.text, [], "")
    )
    if name is None:
        if defaults:  # the caller's environment decides: nothing certain to say
            interp.problem(value.span, f"option file {value.text} depends on {defaults[0]}, "
                           f"{why}: not checked", "unsupported")
        return None, None
    found = find(
        name, cwd, known, interp.main_path, interp.root, value.span, src.span(node),
        _launching_text(interp.main_path, src),
    )
    if found is None:
        return None, None
    if defaults and found.problem is not None and found.problem.kind == "unresolved":
        # the default path: the caller may set the variable, so not certain
        found.problem = ReadProblem(
            found.problem.path, value.span,
            f"launch reads {name} when {', '.join(defaults)} "
            f"{'is' if len(defaults) == 1 else 'are'} not set ({value.text}), "
            "which nothing provides: not checked", "unsupported",
        )
    if reads_itself and found.path is not None:
        return None, found.path
    if found.problem is not None:
        p = found.problem
        interp.problem(p.span, p.message, p.kind)
    if found.lines is None:
        return None, None
    return VFile(found.lines), found.path


def _launching_text(main_path: str, src) -> str:
    """The whole launching file: a Markdown block is parsed on its own, but what provides the
    file (a fenced YAML block, a line of prose) may be anywhere in the guide."""
    if src.line_offset and os.path.isfile(main_path):
        try:
            if os.path.getsize(main_path) <= MAX_OPTION_FILE_BYTES * 8:
                with open(main_path, encoding="utf-8", errors="replace") as fh:
                    return fh.read()
        except OSError:
            pass
    return src.data.decode("utf-8", "replace")
