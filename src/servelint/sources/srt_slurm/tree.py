"""srt-slurm recipe YAML as srtctl reads it, with a span on every key and value.

srtctl loads recipes with PyYAML ``safe_load`` (YAML 1.1: ``on``/``yes`` are booleans,
``1e-3`` is a string), so values here come from PyYAML's own resolver and constructor on
the composed node; only the positions are added. Merge keys (``<<``) are flattened the
way the constructor does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from servelint.model import Span
from servelint.sources.common.yamlpos import SAFE_LOADER, compose_error, node_span

MAX_NODES = 200_000


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
    key_span: Span
    node: Node
    raw_key: object = field(default=None)


class RecipeYamlError(ValueError):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.span = span


class _Builder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.constructor = yaml.constructor.SafeConstructor()
        self.budget = MAX_NODES

    def build(self, node: yaml.Node, depth: int = 0) -> Node:
        self.budget -= 1
        if self.budget < 0 or depth > 200:
            raise RecipeYamlError("document too large or nested too deeply", None)
        span = node_span(self.path, node)
        if isinstance(node, yaml.MappingNode):
            self.constructor.flatten_mapping(node)
            out: dict[str, Entry] = {}
            for k, v in node.value:
                key = self._scalar(k) if isinstance(k, yaml.ScalarNode) else None
                name = key if isinstance(key, str) else str(key)
                out[name] = Entry(node_span(self.path, k), self.build(v, depth + 1), key)
            return Node(out, span)
        if isinstance(node, yaml.SequenceNode):
            return Node([self.build(c, depth + 1) for c in node.value], span)
        return Node(self._scalar(node), span)

    def _scalar(self, node: yaml.ScalarNode) -> object:
        try:
            return self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise RecipeYamlError(f"bad scalar: {exc}", node_span(self.path, node)) from exc


def load_tree(text: str, path: str) -> Node | None:
    """The document's root node (None for an empty document); raises RecipeYamlError."""
    try:
        root = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError as exc:
        msg, span = compose_error(exc, path)
        raise RecipeYamlError(f"malformed YAML: {msg}", span) from exc
    except yaml.YAMLError as exc:
        raise RecipeYamlError(f"malformed YAML: {exc}", None) from exc
    if root is None:
        return None
    return _Builder(path).build(root)
