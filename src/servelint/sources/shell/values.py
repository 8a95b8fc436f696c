"""Values and interpreter state of the static bash reader.

A value is a sequence of ``Piece``s: literal text with the span it was written at,
or a symbolic part (``$TP`` the script does not fix). A ``State`` is one possible
flow through the script (one combination of branch choices).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from servelint.model import PackageInstall, Span, Token

_NEWLINE = re.compile(b"\n")


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of a shell word: literal text, or an expansion whose value is unknown."""

    text: str
    symbolic: bool = False
    span: Span | None = None
    splittable: bool = False  # from an unquoted expansion: subject to word splitting


Pieces = tuple[Piece, ...]


@dataclass(frozen=True, slots=True)
class Field:
    """One shell word after expansion (before becoming a Token)."""

    pieces: Pieces
    span: Span | None  # where the word is written (array element or launch-site word)

    @property
    def text(self) -> str:
        pieces = self.pieces
        if len(pieces) == 1:
            return pieces[0].text
        return "".join([p.text for p in pieces])

    @property
    def symbolic(self) -> bool:
        for p in self.pieces:
            if p.symbolic:
                return True
        return False

    def token(self) -> Token:
        return Token(self.text, self.span, self.symbolic)


@dataclass(frozen=True, slots=True)
class Var:
    """A shell variable's value (scalar or array) and where it was set."""

    scalar: Pieces | None = None  # scalar value
    array: tuple[Field, ...] | None = None  # indexed array value
    exported: bool = False
    span: Span | None = None  # where it was (last) assigned
    external: bool = False  # comes from the caller's env, not from the script
    unknown_array: bool = False  # an array whose elements cannot be known
    # flows are merged by content, so a Var is hashed many times: hash it once
    _hash: int | None = field(default=None, compare=False, repr=False)

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self.scalar, self.array, self.exported, self.span, self.external,
                      self.unknown_array))
            object.__setattr__(self, "_hash", h)
        return h

    @property
    def elements(self) -> tuple[Field, ...]:
        if self.array is not None:
            return self.array
        if self.scalar is not None:
            return (Field(self.scalar, self.span),)
        return ()

    def scalar_value(self) -> Pieces:
        if self.scalar is not None:
            return self.scalar
        if self.array:
            return self.array[0].pieces
        return ()


def text_of(pieces: Pieces) -> str:
    return "".join(p.text for p in pieces)


def is_symbolic(pieces: Pieces) -> bool:
    return any(p.symbolic for p in pieces)


@dataclass
class VFile:
    """A file the script wrote (heredoc / echo redirect): lines with their spans."""

    lines: tuple[tuple[str, Span | None, bool], ...] = ()  # (text, span, symbolic)
    unknown: bool = False


@dataclass
class State:
    """What the shell interpreter knows at one point of a script."""

    vars: dict[str, Var] = field(default_factory=dict)
    funcs: dict[str, tuple[object, object]] = field(default_factory=dict)  # name -> (node, src)
    files: dict[str, VFile] = field(default_factory=dict)
    installs: tuple[PackageInstall, ...] = ()
    labels: tuple[str, ...] = ()
    positional: tuple[Field, ...] = ()
    flow: str = ""  # "" | exit | return | break | continue
    frames: tuple[dict[str, Var | None], ...] = ()  # saved values of ``local`` names
    # conditions this flow already decided: text -> (truth, the Var objects it read)
    facts: dict[str, tuple[bool, tuple]] = field(default_factory=dict)
    ret: bool | None = None  # status given to ``return`` (True = 0)
    # stdout collected inside ``$( )``; None = not capturing or output unknown
    capture: list[str] | None = None
    capturing: bool = False

    def copy(self) -> State:
        return State(dict(self.vars), dict(self.funcs), dict(self.files), self.installs,
                     self.labels, self.positional, self.flow, tuple(dict(f) for f in self.frames),
                     dict(self.facts), self.ret,
                     list(self.capture) if self.capture is not None else None, self.capturing)

    def key(self) -> tuple:
        """Content identity (labels excluded) used to merge equivalent flows."""
        return (
            tuple(sorted(self.vars.items(), key=lambda kv: kv[0])),
            tuple(sorted((k, id(v[0])) for k, v in self.funcs.items())),
            tuple(sorted((k, v.lines, v.unknown) for k, v in self.files.items())),
            tuple((i.requirement, i.span) for i in self.installs),
            self.positional, self.flow,
            tuple(self.capture) if self.capture is not None else None,
        )


class Source:
    """One parsed bash file: path, bytes and byte-offset -> (line, column) mapping.

    ``line_offset``: lines before line 1 of ``data`` in ``path`` (a Markdown code block is
    parsed on its own, its spans in document lines: linear in the number of blocks)."""

    def __init__(self, path: str, data: bytes, tree: object, line_offset: int = 0) -> None:
        self.path = path
        self.data = data
        self.tree = tree
        self.line_offset = line_offset
        self._line_starts = [0]
        self._line_starts += [m.end() for m in _NEWLINE.finditer(data)]
        # parsed sources are cached and re-interpreted per env: spans, texts and tree
        # facts are computed once per node (keyed by byte range / node id)
        self._spans: dict[tuple[int, int], Span] = {}
        self._texts: dict[tuple[int, int], str] = {}
        self.memo: dict[tuple, object] = {}
        self._ascii_rows: dict[int, bool] = {}

    def _col(self, row: int, byte_col: int) -> int:
        start = self._line_starts[row] if row < len(self._line_starts) else 0
        ascii_row = self._ascii_rows.get(row)
        if ascii_row is None:  # once per line: a 400 KB line of 40,000 words is not quadratic
            end = self._line_starts[row + 1] if row + 1 < len(self._line_starts) else None
            ascii_row = self._ascii_rows[row] = self.data[start:end].isascii()
        if ascii_row:
            return byte_col + 1
        chunk = self.data[start:start + byte_col]
        return len(chunk.decode("utf-8", "replace")) + 1

    def span(self, node) -> Span:
        key = (node.start_byte, node.end_byte)
        found = self._spans.get(key)
        if found is None:
            (r0, c0), (r1, c1) = node.start_point, node.end_point
            off = self.line_offset + 1
            found = self._spans[key] = Span(self.path, r0 + off, self._col(r0, c0), r1 + off,
                                            self._col(r1, c1))
        return found

    def line(self, node) -> int:
        """The 1-based line of ``node`` in ``path``."""
        return node.start_point[0] + 1 + self.line_offset

    def span_bytes(self, start: int, end: int) -> Span:
        r0 = bisect.bisect_right(self._line_starts, start) - 1
        r1 = bisect.bisect_right(self._line_starts, end) - 1
        off = self.line_offset + 1
        return Span(self.path, r0 + off, self._col(r0, start - self._line_starts[r0]), r1 + off,
                    self._col(r1, end - self._line_starts[r1]))

    def text(self, node) -> str:
        key = (node.start_byte, node.end_byte)
        found = self._texts.get(key)
        if found is None:
            found = self._texts[key] = self.data[key[0]:key[1]].decode("utf-8", "replace")
        return found


def sub_span(span: Span | None, offset: int, length: int) -> Span | None:
    """The part of a one-line span starting ``offset`` characters in."""
    if span is None or (span.end_line is not None and span.end_line != span.line):
        return span
    return Span(span.path, span.line, span.column + offset, span.line,
                span.column + offset + length)
