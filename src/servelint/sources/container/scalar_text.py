"""A YAML scalar's text placed where the file holds it, so that the shell reader's spans
are the file's own.

The file's lines from the scalar's first to its last are kept with everything that is not
the scalar blanked to spaces (indicators, keys, quotes): every word stays at its column.
YAML folds a line break of a plain, quoted or ``>`` scalar into a space; the shell would
end the command there, so such a break gets `` \\`` after the line's text (a continuation:
the words after it keep their places). ``|`` scalars keep their breaks. The placed text is
used only when its words are the value's words (a double-quoted scalar with escapes is
not): otherwise None, and the caller spans every word at the scalar."""

from __future__ import annotations

from servelint.sources.common.yamlpos import Scalar
from servelint.sources.container.record import ShellText

_ADDED = " \\"  # a folded line break written as a shell continuation


def placed_text(lines: list[str], scalar: Scalar) -> ShellText | None:
    """The scalar's text at its columns (see the module doc), or None."""
    if not isinstance(scalar.value, str):
        return None
    span = scalar.span
    first = span.line - 1
    if first >= len(lines):
        return None
    indicator = lines[first][span.column - 1:span.column]
    added: set[int] = set()  # lines that end with a continuation written here
    if indicator in ("|", ">"):
        body = _block_lines(lines, first, span)
        placed = [""] + (_fold_block(body) if indicator == ">" else body)
        if indicator == ">":
            added = {k for k, line in enumerate(placed) if line.endswith(_ADDED)}
    else:
        flow = _flow_lines(lines, scalar, indicator in ("'", '"'))
        if flow is None:
            return None
        placed = flow
        added = {k for k, line in enumerate(placed) if line.endswith(_ADDED)}
    text = "\n".join(placed)
    # the continuations this module added are spaces in the value; any other text is as is
    meaning = "\n".join(line[:-2] if line.endswith(_ADDED) and k in added else line
                        for k, line in enumerate(placed))
    if _words(meaning) != _words(scalar.value):
        return None
    return ShellText(text, first)


def _words(text: str) -> list[str]:
    return text.split()


def _block_lines(lines: list[str], first: int, span) -> list[str]:  # noqa: ANN001
    """The content lines of a block scalar (after its indicator line), as written. Its end
    mark is where the next token starts: that line holds no content before it."""
    end = (span.end_line or span.line) - 1  # 0-based line of the end mark
    if end < len(lines) and not lines[end][: (span.end_column or 1) - 1].strip():
        stop = end
    else:
        stop = end + 1
    return [lines[i] for i in range(first + 1, min(stop, len(lines)))]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _fold_block(body: list[str]) -> list[str]:
    """``>``: a break between two non-empty lines of the block's own indent is a space."""
    nonempty = [line for line in body if line.strip()]
    base = min((_indent(line) for line in nonempty), default=0)
    out = list(body)
    for i in range(len(body) - 1):
        a, b = body[i], body[i + 1]
        if a.strip() and b.strip() and _indent(a) == base and _indent(b) == base:
            out[i] = a + " \\"
    return out


def _flow_lines(lines: list[str], scalar: Scalar, quoted: bool) -> list[str] | None:
    """A plain or quoted scalar's lines, blanked outside it, breaks folded."""
    span = scalar.span
    first, last = span.line - 1, (span.end_line or span.line) - 1
    end_col = (span.end_column or 1) - 1
    if last >= len(lines):
        return None
    out: list[str] = []
    for i in range(first, last + 1):
        line = lines[i]
        start = span.column - 1 + (1 if quoted else 0) if i == first else 0
        stop = end_col - (1 if quoted else 0) if i == last else len(line)
        piece = " " * start + line[start:stop]
        out.append(piece.rstrip())
    for i in range(len(out) - 1):
        if out[i].strip() and out[i + 1].strip():
            out[i] += " \\"
    return out
