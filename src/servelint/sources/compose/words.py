"""A compose string ``command``/``entrypoint`` split into words as Compose does (shell-like
quoting, no shell run), each word with its span in the file."""

from __future__ import annotations

from servelint.model import Span, Token
from servelint.sources.container.record import ShellText


def split_words(placed: ShellText, path: str) -> list[Token]:
    """Words of ``placed`` (a scalar's text at its columns) with their spans."""
    lines = placed.text.split("\n")
    out: list[Token] = []
    for row, line in enumerate(lines):
        if line.endswith(" \\"):
            line = line[:-2]
        col = 0
        while col < len(line):
            if line[col].isspace():
                col += 1
                continue
            start, text, quote = col, [], ""
            while col < len(line) and (quote or not line[col].isspace()):
                ch = line[col]
                if quote:
                    if ch == quote:
                        quote = ""
                    elif ch == "\\" and quote == '"' and col + 1 < len(line):
                        col += 1
                        text.append(line[col])
                    else:
                        text.append(ch)
                elif ch in ("'", '"'):
                    quote = ch
                elif ch == "\\" and col + 1 < len(line):
                    col += 1
                    text.append(line[col])
                else:
                    text.append(ch)
                col += 1
            at = placed.line_offset + row + 1
            out.append(Token("".join(text), Span(path, at, start + 1, at, col + 1)))
    return out
