"""srt-slurm recipe YAML as srtctl reads it, with a span on every key and value.

srtctl loads recipes with PyYAML ``safe_load`` (YAML 1.1: ``on``/``yes`` are booleans,
``1e-3`` is a string). The document is composed by the project's positioned YAML
(``sources/common/yamlpos``), which keeps, for every plain scalar, the value PyYAML's own
constructor gives it; this module is the YAML 1.1 view of that tree. Merge keys (``<<``)
are flattened as the constructor does (explicit keys win).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.model import Span
from servelint.sources.common.yamlpos import Map, Scalar, Seq, load_yaml_text
from servelint.sources.common.yamlpos import Node as YamlNode


@dataclass(eq=False, slots=True)
class Node:
    """A value (Python, as srtctl sees it) with its span; maps and lists hold Nodes."""

    value: object  # scalar value | dict[str, Entry] | list[Node]
    span: Span

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    def get(self, key: str) -> Node | None:
        if not isinstance(self.value, dict):
            return None
        entry = self.value.get(key)
        return entry.node if entry else None

    def key_span(self, key: str) -> Span | None:
        if not isinstance(self.value, dict):
            return None
        entry = self.value.get(key)
        return entry.key_span if entry else None

    def entries(self) -> list[tuple[str, Entry]]:
        return list(self.value.items()) if isinstance(self.value, dict) else []

    def plain(self) -> object:
        """The Python data srtctl would hold for this node."""
        if isinstance(self.value, dict):
            return {k: e.node.plain() for k, e in self.value.items()}
        if isinstance(self.value, list):
            return [n.plain() for n in self.value]
        return self.value


@dataclass(eq=False, slots=True)
class Entry:
    """One mapping entry of a recipe YAML, with its key's span."""

    key_span: Span
    node: Node
    raw_key: object = field(default=None)


class RecipeYamlError(ValueError):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.span = span


def _scalar(node: Scalar) -> object:
    """The value PyYAML (YAML 1.1, srtctl's loader) gives a scalar yamlpos composed."""
    return node.yaml11_value if node.yaml11_differs else node.value


def _view(root: YamlNode) -> Node:
    """The srtctl view of a yamlpos tree: YAML 1.1 values, Python key spellings; an
    aliased node is viewed once."""
    memo: dict[int, Node] = {}

    def view(n: YamlNode) -> Node:
        found = memo.get(id(n))
        if found is not None:
            return found
        if isinstance(n, Map):
            out: dict[str, Entry] = {}
            for key, value in n.entries:
                raw = _scalar(key)
                out[raw if isinstance(raw, str) else str(raw)] = Entry(key.span, view(value), raw)
            built = Node(out, n.span)
        elif isinstance(n, Seq):
            built = Node([view(c) for c in n.items], n.span)
        else:
            built = Node(_scalar(n), n.span)
        memo[id(n)] = built
        return built

    return view(root)


def load_tree(text: str, path: str) -> Node | None:
    """The document's root node (None for an empty document); raises RecipeYamlError."""
    doc = load_yaml_text(text, path)
    if doc.root is None:
        if doc.problems:  # the document could not be read: its last problem says why
            raise RecipeYamlError(doc.problems[-1].message, doc.problems[-1].span)
        return None
    return _view(doc.root)
