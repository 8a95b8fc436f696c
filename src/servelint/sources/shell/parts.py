"""Word parts as the static bash reader builds them, shared by the expander and the
interpreter: a part is ``(piece, field-span hint)`` or the field break ``BRK``."""

from __future__ import annotations

import fnmatch

from servelint.sources.shell.values import Piece, Pieces

BRK = None
QUOTED = (Piece(""), "Q")  # marks quoted (possibly empty) content in a word
OVER_BUDGET = "\0over budget"  # string_op: the work or the result is over the size budget


def glob_regex(pattern: str) -> str:
    return fnmatch.translate(pattern).removeprefix("(?s:").removesuffix(")\\Z")


def pieces_of(parts: list) -> Pieces:
    """The pieces of an expansion's parts (field breaks and quote marks dropped)."""
    return tuple(p[0] for p in parts if p is not BRK and p[1] != "Q")


def first_named(node):
    """A tree-sitter node's first named child, or None."""
    for c in node.children:
        if c.is_named:
            return c
    return None
