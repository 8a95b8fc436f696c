"""The interpreter's side of option files given by path (``sources.common.option_files``):
the working directory ``cd``/``pushd``/``popd`` set, and the file a launch names when the
script did not write it."""

from __future__ import annotations

import os

from servelint.model import Token
from servelint.sources.common.option_files import (
    CWD_VAR,
    MAX_OPTION_FILE_BYTES,
    change_dir,
    find,
)
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


def disk_file(
    interp, value: Token, st: State, src, node, reads_itself: bool = False
) -> tuple[VFile | None, str | None]:
    """(the lines of the option file ``value`` names, found on disk; the path read), with a
    problem recorded when it cannot be read or nothing provides it. ``reads_itself``: the
    engine's argv model reads the file's content (SGLang's config merge), so a file found is
    handed on by path whatever its content, and only "nothing provides it" is said here."""
    cwd, known = current_dir(st)
    found = find(
        value.text, cwd, known, interp.main_path, interp.root, value.span, src.span(node),
        _launching_text(interp.main_path, src),
    )
    if found is None:
        return None, None
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
