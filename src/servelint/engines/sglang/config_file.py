"""Load the YAML file ``--config`` names as SGLang does (``yaml.safe_load``), within bounds.

SGLang's ConfigArgumentMerger turns every value into argv text with ``str()``; a document
whose aliases expand to millions of nodes ("billion laughs") makes that take forever, in the
release and in servelint alike. Such a file, or one too large, is refused here with
``ConfigTooLarge`` (reported on the launch line) before anything expands it.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_BYTES = 64 << 20
MAX_EXPANDED_NODES = 200_000

try:  # the C loader where libyaml is there (same YAML 1.1 resolution as SafeLoader)
    _LOADER: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _LOADER = yaml.SafeLoader


class ConfigTooLarge(ValueError):
    pass


def _expanded(root: yaml.Node | None) -> int:
    """Nodes ``root`` stands for once aliases are expanded (shared nodes counted per use)."""
    if root is None:
        return 0
    weight: dict[int, int] = {}
    open_: set[int] = set()  # on the current path: a recursive alias counts once
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in weight or (not done and id(node) in open_):
            continue
        kids: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            kids = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            kids = [n for pair in node.value for n in pair]
        if done or not kids:
            open_.discard(id(node))
            weight[id(node)] = 1 + sum(weight.get(id(k), 1) for k in kids)
            if weight[id(node)] > MAX_EXPANDED_NODES:
                return weight[id(node)]
            continue
        open_.add(id(node))
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in weight and id(k) not in open_)
    return weight[id(root)]


def load(path: str) -> Any:
    """``yaml.safe_load`` of the file, or ConfigTooLarge / OSError / yaml.YAMLError."""
    with open(path, "rb") as fh:
        raw = fh.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ConfigTooLarge(f"is larger than {MAX_BYTES >> 20} MiB, more than servelint reads")
    text = raw.decode("utf-8")
    size = _expanded(yaml.compose(text, Loader=_LOADER))
    if size > MAX_EXPANDED_NODES:
        raise ConfigTooLarge(
            f"expands to more than {MAX_EXPANDED_NODES} nodes through YAML aliases; the "
            "release's config merge turns each value into argv text with str(), which does "
            "not finish on it"
        )
    return yaml.load(text, Loader=_LOADER)
