"""YAML with positions: a thin node tree where every scalar, map, sequence and map key keeps its span.

Parsing uses PyYAML ``compose()`` on the C loader; plain scalars are then resolved with the
YAML 1.2 core rules the recipes site's loader (js-yaml) uses, so ``on``/``yes``/``0755`` stay
what the site reads. Dates become ``YYYY-MM-DD`` strings, like the site. Nothing here raises on
bad input: :func:`load_yaml` returns a :class:`ReadProblem` instead. Python data (what an
engine's ``yaml.safe_load`` gives) comes from ``yaml_bounded`` under the same budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from servelint.model import Span
from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yaml_scalars import plain_scalar, tagged_scalar

try:  # the C loader is the contract; fall back only where libyaml is missing
    SAFE_LOADER: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    SAFE_LOADER = yaml.SafeLoader

# Bound on nodes a document may expand to through aliases ("billion laughs").
MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 200

_MERGE_TAG = "tag:yaml.org,2002:merge"


# The nodes compare by identity (``eq=False``): nothing compares them by value.
@dataclass(slots=True, eq=False)
class Scalar:
    """A YAML scalar with its position."""

    value: object  # str | int | float | bool | None (dates normalised to "YYYY-MM-DD")
    span: Span
    quoted: bool = False
    # A plain scalar that YAML 1.1 loaders (PyYAML) read differently from the site (1.2).
    yaml11_value: object = None
    yaml11_differs: bool = False


@dataclass(slots=True, eq=False)
class Seq:
    """A YAML sequence with its position."""

    items: list[Node]
    span: Span
    # the Tokens of the string items, filled by recipe_nodes.seq_tokens on first use
    token_parts: tuple | None = None

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(slots=True, eq=False)
class Map:
    """Mapping in document order; keys are looked up by their string form (as JavaScript does)."""

    entries: list[tuple[Scalar, Node]]
    span: Span
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._index = {key_text(k): i for i, (k, _) in enumerate(self.entries)}

    def get(self, key: str) -> Node | None:
        i = self._index.get(key)
        return None if i is None else self.entries[i][1]

    def key_node(self, key: str) -> Scalar | None:
        i = self._index.get(key)
        return None if i is None else self.entries[i][0]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def keys(self) -> list[str]:
        return [key_text(k) for k, _ in self.entries]

    def items(self) -> list[tuple[str, Node]]:
        return [(key_text(k), v) for k, v in self.entries]

    def __len__(self) -> int:
        return len(self.entries)


Node = Scalar | Seq | Map


def key_text(key: Scalar) -> str:
    """The property name JavaScript would use for a mapping key."""
    return js_string(key.value)


def js_string(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


# --------------------------------------------------------------------------- composing


class _YamlInputError(Exception):
    def __init__(self, message: str, span: Span | None, kind: str = "parse-error") -> None:
        super().__init__(message)
        self.span = span
        self.kind = kind


def node_span(path: str, node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)


class _Builder:
    """Turns PyYAML nodes into the thin tree, sharing aliased nodes and bounding expansion."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.memo: dict[int, Node] = {}
        self.weight: dict[int, int] = {}
        self.active: set[int] = set()
        self.warnings: list[ReadProblem] = []

    def build(self, node: yaml.Node, depth: int = 0) -> Node:
        key = id(node)
        found = self.memo.get(key)
        if found is not None:
            return found
        if node.__class__ is yaml.ScalarNode and depth <= MAX_DEPTH:  # a leaf: no recursion
            found = self.memo[key] = self._scalar(node)
            self.weight[key] = 1
            return found
        if key in self.active:
            raise _YamlInputError(
                "recursive alias (a node contains itself)", node_span(self.path, node)
            )
        if depth > MAX_DEPTH:
            raise _YamlInputError(
                f"nesting deeper than {MAX_DEPTH} levels", node_span(self.path, node), "budget"
            )
        self.active.add(key)
        try:
            built, weight = self._build(node, depth)
        finally:
            self.active.discard(key)
        if weight > MAX_EXPANDED_NODES:
            raise _YamlInputError(
                f"document expands to more than {MAX_EXPANDED_NODES} nodes through aliases",
                node_span(self.path, node),
                "budget",
            )
        self.memo[key] = built
        self.weight[key] = weight
        return built

    def _scalar(self, node: yaml.ScalarNode) -> Scalar:
        span = node_span(self.path, node)
        if node.style:
            return Scalar(tagged_scalar(node), span, node.style in ("'", '"', "|", ">"))
        value, old, differs = plain_scalar(node)
        if differs:
            return Scalar(value, span, False, old, True)
        return Scalar(value, span, False)

    def _build(self, node: yaml.Node, depth: int) -> tuple[Node, int]:
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node), 1
        span = node_span(self.path, node)
        if isinstance(node, yaml.SequenceNode):
            items = [self.build(child, depth + 1) for child in node.value]
            return Seq(items, span), 1 + sum(self.weight[id(c)] for c in node.value)
        if isinstance(node, yaml.MappingNode):
            return self._build_map(node, span, depth)
        raise _YamlInputError(f"unsupported YAML node {type(node).__name__}", span)

    def _build_map(self, node: yaml.MappingNode, span: Span, depth: int) -> tuple[Node, int]:
        merged: list[tuple[Scalar, Node]] = []
        explicit: list[tuple[Scalar, Node]] = []
        weight = 1
        for knode, vnode in node.value:
            if knode.tag == _MERGE_TAG or (
                isinstance(knode, yaml.ScalarNode) and knode.value == "<<" and not knode.style
            ):
                value = self.build(vnode, depth + 1)
                weight += self.weight[id(vnode)]
                sources = value.items if isinstance(value, Seq) else [value]
                for source in sources:
                    if not isinstance(source, Map):
                        raise _YamlInputError("merge key '<<' needs a mapping", value.span)
                    merged.extend(source.entries)
                continue
            if not isinstance(knode, yaml.ScalarNode):
                raise _YamlInputError("mapping key is not a scalar", node_span(self.path, knode))
            key = self.build(knode, depth + 1)
            assert isinstance(key, Scalar)
            value = self.build(vnode, depth + 1)
            weight += 1 + self.weight[id(vnode)]
            explicit.append((key, value))
        seen: dict[str, int] = {}
        entries: list[tuple[Scalar, Node]] = []
        for key, value in explicit:
            text = key_text(key)
            if text in seen:
                # js-yaml refuses duplicated keys; PyYAML keeps the last one. Report, keep last.
                self.warnings.append(
                    ReadProblem(
                        self.path, key.span, f"duplicated mapping key {text!r}", "parse-error"
                    )
                )
                entries[seen[text]] = (key, value)
                continue
            seen[text] = len(entries)
            entries.append((key, value))
        for key, value in merged:  # merged keys never override explicit ones
            text = key_text(key)
            if text not in seen:
                seen[text] = len(entries)
                entries.append((key, value))
        return Map(entries, span), weight


# (tag, text) of a plain scalar -> (value, YAML 1.1 value, the two differ); recipes repeat
# the same plain scalars (flags, ids, numbers) thousands of times.
def yaml11_differences(node: Node | None) -> list[Scalar]:
    """Plain scalars under ``node`` that YAML 1.1 tools read differently from the site."""
    out: list[Scalar] = []
    seen: set[int] = set()

    def walk(n: Node | None) -> None:
        if n is None or id(n) in seen:
            return
        seen.add(id(n))
        if isinstance(n, Scalar):
            if n.yaml11_differs:
                out.append(n)
        elif isinstance(n, Seq):
            for child in n.items:
                walk(child)
        else:
            for key, value in n.entries:
                walk(key)
                walk(value)

    walk(node)
    return out


# --------------------------------------------------------------------------- public API


@dataclass(slots=True, eq=False)
class YamlDoc:
    """A composed YAML file: its root node, or the problems that kept it from composing."""

    path: str
    root: Node | None
    problems: list[ReadProblem]


def compose_error(exc: yaml.MarkedYAMLError, path: str) -> tuple[str, Span | None]:
    """PyYAML's complaint as (message, span of the mark it points at, if any)."""
    mark = exc.problem_mark or exc.context_mark
    span = Span(path, mark.line + 1, mark.column + 1) if mark else None
    return " ".join(p for p in (exc.context, exc.problem) if p) or str(exc), span


def load_yaml_text(text: str, path: str = "<string>") -> YamlDoc:
    """Compose one YAML document with positions. Problems are returned, never raised."""
    try:
        node = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError as exc:
        message, span = compose_error(exc, path)
        return YamlDoc(
            path, None, [ReadProblem(path, span, f"malformed YAML: {message}", "read-error")]
        )
    except yaml.YAMLError as exc:
        return YamlDoc(
            path, None, [ReadProblem(path, None, f"malformed YAML: {exc}", "read-error")]
        )
    except (RecursionError, MemoryError, ValueError) as exc:
        return YamlDoc(path, None, [ReadProblem(path, None, f"unreadable YAML: {exc}")])
    if node is None:
        return YamlDoc(path, None, [])
    builder = _Builder(path)
    try:
        root = builder.build(node)
    except _YamlInputError as exc:
        # no document: the file could not be read (an error, whatever stopped it)
        problem = ReadProblem(path, exc.span, str(exc), "read-error")
        return YamlDoc(path, None, [*builder.warnings, problem])
    except (RecursionError, ValueError, TypeError) as exc:
        return YamlDoc(
            path, None, [ReadProblem(path, node_span(path, node), f"unreadable YAML: {exc}")]
        )
    return YamlDoc(path, root, builder.warnings)


def load_yaml(path: str | Path) -> YamlDoc:
    """Read and compose a YAML file (UTF-8, BOM allowed)."""
    name = str(path)
    note(path)
    try:
        if not Path(path).is_file():  # a FIFO or device would block or never end
            raise OSError(f"not a regular file: {name}")
        raw = overlay.read_bytes(path)
    except OSError as exc:
        return YamlDoc(
            name, None, [ReadProblem(name, None, f"cannot read file: {exc.strerror or exc}")]
        )
    return _load_yaml_bytes(raw, name)


def _load_yaml_bytes(raw: bytes, name: str) -> YamlDoc:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return YamlDoc(
            name, None, [ReadProblem(name, Span(name, line, col), "file is not valid UTF-8")]
        )
    return load_yaml_text(text, name)


def to_python(node: Node | None, *, limit: int = MAX_EXPANDED_NODES) -> object:
    """Plain Python data (dict/list/scalars) for a node; raises ValueError past ``limit`` nodes."""
    budget = [limit]

    def conv(n: Node | None) -> object:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError(f"more than {limit} nodes")
        if n is None:
            return None
        if isinstance(n, Scalar):
            return n.value
        if isinstance(n, Seq):
            return [conv(c) for c in n.items]
        return {key_text(k): conv(v) for k, v in n.entries}

    return conv(node)


def at(node: Node | None, *keys: str | int) -> Node | None:
    """Follow map keys / sequence indexes; None when any step is missing or of the wrong kind."""
    for key in keys:
        if node.__class__ is Map and key.__class__ is str:  # the common step, inlined
            i = node._index.get(key)  # type: ignore[union-attr]
            if i is None:
                return None
            node = node.entries[i][1]  # type: ignore[union-attr]
            continue
        if isinstance(key, int):
            if not isinstance(node, Seq) or not -len(node.items) <= key < len(node.items):
                return None
            node = node.items[key]
        else:
            if not isinstance(node, Map):
                return None
            node = node.get(key)
        if node is None:
            return None
    return node


def load_yaml_stream(text: str, path: str) -> tuple[list[Node], list[ReadProblem]]:
    """Every document of a multi-document stream (``---``), each with positions; empty
    documents are left out. A stream that stops composing keeps the documents before the
    error and reports it (never raised)."""
    docs: list[Node] = []
    problems: list[ReadProblem] = []
    try:
        for node in yaml.compose_all(text, Loader=SAFE_LOADER):
            if node is None:
                continue
            builder = _Builder(path)
            try:
                docs.append(builder.build(node))
            except _YamlInputError as exc:
                problems.append(ReadProblem(path, exc.span, str(exc), "read-error"))
            problems.extend(builder.warnings)
    except yaml.MarkedYAMLError as exc:
        message, span = compose_error(exc, path)
        problems.append(ReadProblem(path, span, f"malformed YAML: {message}", "read-error"))
    except (yaml.YAMLError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        problems.append(ReadProblem(path, None, f"unreadable YAML: {exc}", "read-error"))
    return docs, problems
