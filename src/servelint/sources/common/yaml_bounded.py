"""Python data from YAML (what an engine's ``yaml.safe_load`` gives), within a budget.

Every YAML document servelint turns into plain data goes through here — an engine option or
config file a launch writes or reads, a master config, a runner list — so an alias bomb
("billion laughs": 400 bytes that stand for billions of nodes), an over-large text or a
deep tree is refused before anything expands it. The thin tree with positions is
``yamlpos.load_yaml``, under the same node budget.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.common.yamlpos import MAX_EXPANDED_NODES, SAFE_LOADER

MAX_TEXT_CHARS = 64 << 20  # YAML text a plain-data load takes


class YamlBudgetError(ValueError):
    """A document over the alias/size budget: nothing was expanded."""


def expanded_nodes(root: yaml.Node | None, limit: int = MAX_EXPANDED_NODES) -> int:
    """Nodes ``root`` stands for once aliases are expanded (a shared node counted per use),
    stopping past ``limit``."""
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
            if weight[id(node)] > limit:
                return weight[id(node)]
            continue
        open_.add(id(node))
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in weight and id(k) not in open_)
    return weight[id(root)]


def check_budget(node: yaml.Node | None, text_size: int = 0) -> None:
    """Raise YamlBudgetError when ``node`` expands past the budget or its text is too large."""
    if text_size > MAX_TEXT_CHARS:
        raise YamlBudgetError(f"is larger than {MAX_TEXT_CHARS >> 20} MiB of YAML text")
    size = expanded_nodes(node)
    if size > MAX_EXPANDED_NODES:
        raise YamlBudgetError(
            f"expands to more than {MAX_EXPANDED_NODES} nodes through YAML aliases"
        )


def compose_bounded(text: str) -> yaml.Node | None:
    """``yaml.compose`` of one document (the C loader) within the budget; raises
    yaml.YAMLError, YamlBudgetError (a ValueError) or RecursionError."""
    if len(text) > MAX_TEXT_CHARS:
        check_budget(None, len(text))
    node = yaml.compose(text, Loader=SAFE_LOADER)
    check_budget(node)
    return node


def safe_load_bounded(text: str) -> object:
    """What ``yaml.safe_load(text)`` gives (YAML 1.1, as the engines read their files), built
    only when the document is within the budget: every YAML document servelint turns into
    Python data goes through here (or ``load_yaml``), never ``yaml.safe_load``. Raises
    yaml.YAMLError, YamlBudgetError (a ValueError) or RecursionError."""
    if len(text) > MAX_TEXT_CHARS:
        check_budget(None, len(text))
    loader = SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_budget(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def construct_bounded(node: yaml.Node | None) -> object:
    """Python data (YAML 1.1 safe constructors) of a composed node, within the budget."""
    check_budget(node)
    return yaml.constructor.SafeConstructor().construct_document(node)


def read_yaml_bytes(path: str | Path, limit: int = MAX_TEXT_CHARS) -> str:
    """A YAML file's text: a regular file (never waiting on a FIFO), at most ``limit`` bytes,
    UTF-8 (BOM allowed). Raises OSError, UnicodeDecodeError (a ValueError) or
    YamlBudgetError."""
    note(path)
    raw = overlay.get(path)  # the text --fix checks in place of the file's
    if raw is None:
        if not Path(path).is_file():
            raise OSError(f"not a regular file: {path}")
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    if len(raw) > limit:
        raise YamlBudgetError(f"is larger than {limit >> 20} MiB")
    return raw.decode("utf-8-sig")
