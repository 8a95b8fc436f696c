"""``eval``/``bash -c`` of text with unknown parts: the known text is re-parsed, each
unknown part stands in as a variable that holds it (symbolic), so a launch composed in a
string (``CMD="python3 -m sglang.launch_server … ${EXTRA}"; bash -c "$CMD"``) is found
with its unknown parts left symbolic. A hole that lands inside quotes of the evaluated
text keeps its placeholder spelling; :func:`restore` turns such tokens back into the
unknown part's own spelling, marked symbolic.
"""

from __future__ import annotations

import re
from dataclasses import replace

from servelint.model import LaunchSpec, Token
from servelint.sources.shell.values import Field, Piece, Var

PREFIX = "__servelint_unknown_"
_EDGES = re.compile(r"((?:\s|\\\n)*)(.*?)((?:\s|\\\n)*)", re.S)
_HOLE = re.compile(r"\$\{" + PREFIX + r"(\d+)\}|\$" + PREFIX + r"(\d+)\b")


def text_with_holes(args: list[Field]) -> tuple[str, list[Piece]]:
    """-> (the text to evaluate, the unknown pieces in hole order)."""
    holes: list[Piece] = []
    parts: list[str] = []
    for i, f in enumerate(args):
        if i:
            parts.append(" ")
        for p in f.pieces:
            if p.symbolic:
                # an unknown piece may carry the blanks and line continuations written
                # around it: they separate words, the hole is the rest
                m = _EDGES.fullmatch(p.text)
                lead, core, trail = m.groups() if m else ("", p.text, "")
                parts.append(" " * bool(lead))
                if core:
                    parts.append("${" + PREFIX + f"{len(holes)}}}")
                    holes.append(Piece(core, True, p.span))
                parts.append(" " * bool(trail))
            else:
                parts.append(p.text)
    return "".join(parts), holes


def hole_vars(holes: list[Piece]) -> dict[str, Var]:
    return {
        f"{PREFIX}{i}": Var(scalar=(Piece(p.text, True, p.span),), span=p.span)
        for i, p in enumerate(holes)
    }


def _fill(text: str, holes: list[Piece]) -> tuple[str, bool]:
    hit = False

    def sub(m: re.Match[str]) -> str:
        nonlocal hit
        i = int(m.group(1) or m.group(2))
        hit = True
        return holes[i].text if i < len(holes) else m.group(0)

    return _HOLE.sub(sub, text), hit


def restore(launches: list[LaunchSpec], holes: list[Piece]) -> None:
    """Placeholders left in the launches' words (holes quoted in the evaluated text) ->
    the unknown part's spelling, symbolic."""
    if not holes:
        return
    for spec in launches:
        for i, tok in enumerate(spec.argv):
            if PREFIX in tok.text:
                text, _ = _fill(tok.text, holes)
                spec.argv[i] = Token(text, tok.span, True)
        for i, env in enumerate(spec.env):
            if PREFIX in env.value:
                text, _ = _fill(env.value, holes)
                spec.env[i] = replace(env, value=text, symbolic=True)
