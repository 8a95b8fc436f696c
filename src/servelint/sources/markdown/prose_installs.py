"""Install steps a guide writes in its text rather than in a command block: inline code in
prose, a table cell or a shell comment ("run `pip install fastokens` first", "# after `pip
install fastokens`"). A reader who follows the guide runs them before the launches below, so
they satisfy package gates like an install line would (``DocContext.installs``).

Only inline code (between backticks) is read: a bare "pip install x" in a sentence or a
commented-out install line is not an instruction. Installs of an engine itself are left to
the command blocks (a release named in prose is read by ``prose_pins``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace

from servelint.engines.registry import engines
from servelint.model import PackageInstall, Span, Token
from servelint.sources.common.pip import installs_from_tokens
from servelint.sources.markdown.fences import Fence

_INLINE = re.compile(r"`([^`\n]+)`")
_INSTALL = re.compile(r"^\s*(?:(?:uv\s+)?pip3?|python3?\s+-m\s+pip)\s+install\s")


def _engine_packages() -> frozenset[str]:
    return frozenset(e.package.lower() for e in engines() if e.package)


def line_installs(text: str, span_at) -> list[PackageInstall]:  # noqa: ANN001
    """Installs in the inline code of one line; ``span_at(column, end)`` maps a 1-based
    column range of ``text`` to a span."""
    if "install" not in text or "`" not in text:
        return []

    out: list[PackageInstall] = []
    for m in _INLINE.finditer(text):
        code = m.group(1)
        if not _INSTALL.match(code):
            continue
        try:
            words = shlex.split(code)
        except ValueError:
            continue
        span = span_at(m.start(1) + 1, m.end(1) + 1)
        tokens = [Token(w, span) for w in words]
        engines = _engine_packages()
        out += [
            replace(i, span=span, from_context=True)
            for i in installs_from_tokens(tokens)
            if not (i.name and i.name.lower() in engines)
        ]
    return out


def block_comment_installs(
    fence: Fence, text_lines: list[str], span_at  # noqa: ANN001
) -> list[PackageInstall]:
    """Installs in inline code of a shell block's comment lines (``span_at(line, column,
    end)`` in document coordinates, as for prose)."""
    out: list[PackageInstall] = []
    for i, line in enumerate(fence.lines):
        row = fence.line + i
        if line.lstrip().startswith("#") and row - 1 < len(text_lines):
            raw = text_lines[row - 1]
            out += line_installs(raw, lambda c, e, n=row: span_at(n, c, e))
    return out


def prose_installs(lines: list[str], first: int, span_at) -> list[PackageInstall]:  # noqa: ANN001
    """Installs in inline code of prose ``lines`` (document line ``first`` on);
    ``span_at(line, column, end)`` maps document coordinates to a span."""
    out: list[PackageInstall] = []
    for i, line in enumerate(lines):
        out += line_installs(line, lambda c, e, n=first + i: span_at(n, c, e))
    return out


def doc_span(path: str, base_line: int, base_column: int, fixed: Span | None):  # noqa: ANN201
    """``span_at(line, column, end)`` for document coordinates of a raw text line."""

    def span_at(line: int, column: int, end: int) -> Span:
        if fixed is not None:
            return fixed
        row = base_line - 1 + line
        return Span(path, row, base_column - 1 + column, row, base_column - 1 + end)

    return span_at
