"""Source excerpts with a caret underline that lines up under wide characters and tabs."""

from __future__ import annotations

import unicodedata

from servelint.model import Span

TAB_STOP = 4


def char_width(ch: str) -> int:
    """Terminal cells one character takes (combining marks take none)."""
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufeff":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def expand(line: str) -> tuple[str, list[int]]:
    """The line as displayed (tabs expanded) and the display cell where each char starts.

    The offsets list has one extra entry: the cell just past the end of the line.
    """
    if line.isascii() and "\t" not in line:  # every character one cell (most lines)
        return line, list(range(len(line) + 1))
    shown: list[str] = []
    starts: list[int] = []
    cell = 0
    for ch in line:
        starts.append(cell)
        if ch == "\t":
            pad = TAB_STOP - cell % TAB_STOP
            shown.append(" " * pad)
            cell += pad
        else:
            shown.append(ch)
            cell += char_width(ch)
    starts.append(cell)
    return "".join(shown), starts


def underline(line: str, span: Span) -> tuple[str, str]:
    """(displayed line, marker line) for ``span`` on ``line`` (1-based, end exclusive).

    Without an end column the marker runs to the end of the token; a span that ends
    on a later line is underlined to the end of this line.
    """
    text = line.rstrip("\r\n")
    shown, starts = expand(text)
    start = min(max(span.column - 1, 0), len(text))
    if span.end_line is not None and span.end_line > span.line:
        end = len(text.rstrip())
    elif span.end_column is not None:
        end = min(max(span.end_column - 1, start), len(text))
    else:
        end = start
        while end < len(text) and not text[end].isspace():
            end += 1
    left = starts[start]
    width = max(starts[end] - left, 1)
    return shown.rstrip(), " " * left + "^" * width
