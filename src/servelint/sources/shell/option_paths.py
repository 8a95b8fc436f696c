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

# ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}`` (a literal default) and ``$VAR``
_EXPANSION = re.compile(
    r"\$\{(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?-)(?P<default>[^}$`\\]*))?\}|\$(?P<bare>[A-Za-z_]\w*)"
)
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
    """The name a symbolic option-file path gives when the script runs as written:
    ``${VAR:-default}`` / ``${VAR-default}`` whose VAR the script never assigns takes its
    default (bash's value when the caller does not set VAR either), a VAR the script sets to
    a literal its value. (the name, the variables whose default it took, ""); (None, the
    variable that decides it, why) when the script cannot tell (a variable without a default
    that the script does not set, one set to an unknown value; nothing said of a command
    substitution or a glob)."""
    out: list[str] = []
    defaults: list[str] = []
    pos = 0
    for m in _EXPANSION.finditer(text):
        out.append(text[pos : m.start()])
        pos = m.end()
        name, op = m.group("name") or m.group("bare"), m.group("op")
        var = st.vars.get(name)
        if var is not None:
            pieces = var.scalar_value()
            if is_symbolic(pieces):
                why = "which the caller's environment sets" if var.external else \
                    "which the script sets to a value it cannot know"
                return None, [name], why
            value = text_of(pieces)
            out.append(m.group("default") if op == ":-" and not value else value)
        elif op is None:
            return None, [name], "which the script does not set"
        else:
            out.append(m.group("default"))
            defaults.append(name)
    out.append(text[pos:])
    name = "".join(out)
    if not name or any(c in name for c in "$`*?[") or not defaults:
        return None, [], ""
    return name, defaults, ""


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
            f"launch reads {name} when {', '.join(defaults)} is not set ({value.text}), "
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
