"""The bash syntax tree as the static reader uses it: parsed sources (cached per file), the
names a block assigns, the clauses of ``if``/``case``, library files."""

from __future__ import annotations

import os
import time
from stat import S_ISREG

import tree_sitter_bash
from tree_sitter import Language, Parser, Query

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.model import Span
from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.shell.values import (
    Source,
)
from servelint.util.lru import Lru

LANGUAGE = Language(tree_sitter_bash.language())
PARSER = Parser(LANGUAGE)
_HAS_TIMEOUT_SETTING = hasattr(Parser, "timeout_micros")  # tree-sitter < 0.25
# (path, mtime, size) -> the parsed file with the facts read from its tree (``Source.memo``:
# names assigned, helper reach...). InferenceX reads each benchmark script once per matrix
# entry and sources the same helpers from each: its whole-process CPU is 15.5 s with this
# memo and 28-29 s without (2 runs each, `check --no-cache -j 1`, 2-core machine).
_PARSED = Lru(256)
MAX_FILE_BYTES = 2_000_000


PARSE_SECONDS = 5.0  # one parse; tree-sitter-bash can take minutes on some mutated inputs
_READ_CHUNK = 1 << 16


class ParseTimeout(Exception):
    """tree-sitter did not finish parsing within ``PARSE_SECONDS`` (the file is not read)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the bash parser did not finish within {PARSE_SECONDS:g} s: not read")
        self.path = path


def parse_tree(data: bytes, path: str = "<text>"):
    """tree-sitter's tree of ``data`` within ``PARSE_SECONDS``, else ParseTimeout.
    tree-sitter >= 0.25 has no timeout setting: a progress callback (called only when the
    text comes through a read callback, not from bytes) cancels the parse; older releases
    have ``Parser.timeout_micros`` and return None when it expires."""
    if _HAS_TIMEOUT_SETTING:
        PARSER.timeout_micros = int(PARSE_SECONDS * 1e6)
        tree = PARSER.parse(data)
        if tree is None:
            PARSER.reset()
            raise ParseTimeout(path)
        return tree
    deadline = time.monotonic() + PARSE_SECONDS

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + _READ_CHUNK]

    def progress(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        return PARSER.parse(read, progress_callback=progress)
    except ValueError:  # "Parsing failed": cancelled
        PARSER.reset()  # (else the next parse would resume this one)
        raise ParseTimeout(path) from None


def parse_source(path: str, data: bytes, line_offset: int = 0) -> Source:
    """``data`` parsed; raises ParseTimeout (the readers report the file as not read)."""
    return Source(path, data, parse_tree(data, path), line_offset)


def load_source(path: str) -> Source | None:
    note(path)
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
        return None
    stand_in = overlay.get(path)  # --fix re-checking an edit it has not written yet
    if stand_in is not None:
        return parse_source(path, stand_in)
    if stat.st_size > MAX_FILE_BYTES:
        return None
    return _PARSED.get_or((path, int(stat.st_mtime_ns), stat.st_size), lambda: _parse_file(path))


def _parse_file(path: str) -> Source:
    with open(path, "rb") as fh:
        return parse_source(path, fh.read())


class FixedSpanSource(Source):
    """Source of an ``eval``/``bash -c`` string: every span is the command's span."""

    def __init__(self, path: str, data: bytes, tree: object, span: Span) -> None:
        super().__init__(path, data, tree)
        self._fixed = span

    def span(self, node) -> Span:  # noqa: ARG002
        return self._fixed

    def span_bytes(self, start: int, end: int) -> Span:  # noqa: ARG002
        return self._fixed


def names_memo(kind: str, node, src: Source, compute) -> frozenset[str]:
    """``compute(node, src)`` once per node of a parsed source (keyed by its byte range)."""
    key = (kind, node.start_byte, node.end_byte, node.type)
    found = src.memo.get(key)
    if found is None:
        found = src.memo[key] = frozenset(compute(node, src))
    return found  # type: ignore[return-value]


def global_assignments(body, src: Source) -> frozenset[str]:
    return names_memo("global_assignments", body, src, _global_assignments_of)


def _global_assignments_of(body, src: Source) -> set[str]:
    assigned = assigned_names(body, src)
    local: set[str] = set()
    stack = [body]
    while stack:
        n = stack.pop()
        if (
            n.type == "declaration_command"
            and n.children
            and n.children[0].type in ("local", "declare", "typeset")
        ):
            for c in n.named_children:
                if c.type == "variable_name":
                    local.add(src.text(c))
                elif c.type == "variable_assignment":
                    nm = c.child_by_field_name("name")
                    if nm is not None:
                        local.add(src.text(nm))
        stack.extend(n.children)
    return assigned - local


_ASSIGNED = Query(
    LANGUAGE,
    "(variable_assignment name: [(variable_name) @n (subscript name: (variable_name) @n)])",
)


def assigned_names(node, src: Source) -> frozenset[str]:
    return names_memo("assigned_names", node, src, _assigned_names_of)


def _assigned_names_of(node, src: Source) -> set[str]:
    """Names assigned anywhere under ``node``, matched in tree-sitter (a walk in Python over
    a 2 MB script's 1.7M nodes took 8 s)."""
    if QueryCursor is not None:
        found = QueryCursor(_ASSIGNED).captures(node)
    else:  # tree-sitter 0.23/0.24
        found = _ASSIGNED.captures(node)
    nodes = found.get("n", []) if isinstance(found, dict) else [n for n, _ in found]
    return {src.text(n) for n in nodes}


def if_clauses(node):
    """-> [(condition nodes | None, body nodes, line)] for if/elif/else."""
    clauses = []
    cond, body, seen_then = [], [], False
    for i, c in enumerate(node.children):
        fname = node.field_name_for_child(i)
        if c.type == "then":
            seen_then = True
            continue
        if c.type in ("elif_clause", "else_clause"):
            continue
        if fname == "condition" and not seen_then:
            if c.is_named:
                cond.append(c)
        elif seen_then and c.is_named and c.type != "comment":
            body.append(c)
    clauses.append((cond, body, node.start_point[0] + 1))
    for c in node.named_children:
        if c.type == "elif_clause":
            ec, eb, seen = [], [], False
            for _j, x in enumerate(c.children):
                if x.type == "then":
                    seen = True
                    continue
                if not x.is_named or x.type == "comment":
                    continue
                (eb if seen else ec).append(x)
            clauses.append((ec, eb, c.start_point[0] + 1))
        elif c.type == "else_clause":
            clauses.append(
                (None, [x for x in c.named_children if x.type != "comment"], c.start_point[0] + 1)
            )
    return clauses


def case_item_parts(item):
    patterns, body = [], []
    for i, c in enumerate(item.children):
        if item.field_name_for_child(i) == "value":
            patterns.append(c)
        elif c.is_named and c.type != "comment" and item.field_name_for_child(i) != "termination":
            body.append(c)
    return patterns, body


_LIBRARY_NODES = frozenset(
    {"function_definition", "variable_assignment", "declaration_command", "comment"}
)


def is_library(src: Source) -> bool:
    """A file of definitions only: functions, assignments, ``export``/``declare``."""
    return all(n.type in _LIBRARY_NODES for n in src.tree.root_node.named_children)
