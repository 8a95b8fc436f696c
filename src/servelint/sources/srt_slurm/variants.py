"""Override recipes: ``base`` + ``override_<x>`` / ``zip_override_<x>`` blocks -> variants.

Mirrors srtctl's ``generate_override_configs`` (srt-slurm ``src/srtctl/core/config.py``):
a selector picks ``base``, one ``override_<x>`` (deep-merged over ``base``; a ``null`` value
deletes the key; lists replace), a whole ``zip_override_<x>`` group (every list-valued leaf
is one dimension, length-1 lists broadcast) or one of its rows ``zip_override_<x>[i]``, or a
glob over the override names. Without a selector every override and every zip row is a
variant (``base`` itself is not). A recipe without ``base`` is its own single variant.
Merged nodes keep the span of the block they came from.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from servelint.sources.srt_slurm.tree import Entry, Node

_ZIP_ROW = re.compile(r"(zip_override_[\w-]+)\[(\d+)\]")


@dataclass(slots=True)
class Variant:
    """One variant of a srt-slurm recipe (the plain recipe or an override)."""

    label: str  # "" for a plain recipe, else the override suffix ("stp_tp4", "mtp_0")
    root: Node
    name: str  # the recipe name srtctl gives the variant


class SelectorError(ValueError):
    pass


def is_override_recipe(root: Node) -> bool:
    return root.is_map and root.get("base") is not None and root.get("base").is_map


def deep_merge(base: Node, override: Node) -> Node:
    out = dict(base.value)  # type: ignore[arg-type]
    for key, entry in override.entries():
        if entry.node.value is None:
            out.pop(key, None)
        elif entry.node.is_map and key in out and out[key].node.is_map:
            out[key] = Entry(entry.key_span, deep_merge(out[key].node, entry.node))
        else:
            out[key] = entry
    return Node(out, base.span)


def _list_lengths(node: Node) -> list[int]:
    out: list[int] = []
    for _, entry in node.entries():
        if entry.node.is_list:
            out.append(len(entry.node.value))  # type: ignore[arg-type]
        elif entry.node.is_map:
            out.extend(_list_lengths(entry.node))
    return out


def _zip_length(node: Node) -> int:
    lengths = _list_lengths(node)
    if not lengths:
        raise SelectorError("zip_override section contains no list values")
    if 0 in lengths:
        raise SelectorError("zip_override contains an empty list")
    wide = {n for n in lengths if n != 1}
    if len(wide) > 1:
        raise SelectorError(f"incompatible zip lengths {sorted(wide)}")
    return wide.pop() if wide else 1


def _zip_slice(node: Node, index: int) -> Node:
    out: dict[str, Entry] = {}
    for key, entry in node.entries():
        child = entry.node
        if child.is_list:
            items = child.value
            child = items[0 if len(items) == 1 else index]  # type: ignore[index]
        elif child.is_map:
            child = _zip_slice(child, index)
        out[key] = Entry(entry.key_span, child)
    return Node(out, node.span)


def _name(root: Node) -> str:
    node = root.get("name")
    return str(node.value) if node is not None and node.value is not None else "unnamed"


def _zip_group(root: Node, key: str) -> list[Variant]:
    base = root.get("base")
    group = key[len("zip_override_") :]
    zipped = root.get(key)
    if zipped is None or not zipped.is_map:
        raise SelectorError(f"{key!r} is not a mapping")
    named = zipped.get("name") is not None and zipped.get("name").is_list
    out = []
    for i in range(_zip_length(zipped)):
        merged = deep_merge(base, _zip_slice(zipped, i))
        name = _name(merged) if named else f"{_name(base)}_{group}_{i}"
        out.append(Variant(f"{group}_{i}", merged, name))
    return out


def _override(root: Node, key: str) -> Variant:
    base = root.get("base")
    block = root.get(key)
    if block is None or not block.is_map:
        raise SelectorError(f"{key!r} is not a mapping")
    suffix = key[len("override_") :]
    merged = deep_merge(base, block)
    name = _name(merged) if block.get("name") is not None else f"{_name(base)}_{suffix}"
    return Variant(suffix, merged, name)


def variants(root: Node, selector: str | None = None) -> list[Variant]:
    """The variants srtctl runs for ``selector`` (raises SelectorError as srtctl raises)."""
    if not is_override_recipe(root):
        if selector:
            raise SelectorError(f"selector {selector!r} given but the recipe has no 'base' block")
        return [Variant("", root, _name(root))]
    keys = [k for k, _ in root.entries()]
    overrides = sorted(k for k in keys if k.startswith("override_"))
    zips = sorted(k for k in keys if k.startswith("zip_override_"))
    if selector is None:
        return [_override(root, k) for k in overrides] + [
            v for k in zips for v in _zip_group(root, k)
        ]
    m = _ZIP_ROW.fullmatch(selector)
    if m:
        if m.group(1) not in keys:
            raise SelectorError(
                f"{m.group(1)!r} not found; zip groups: {', '.join(zips) or 'none'}"
            )
        rows = _zip_group(root, m.group(1))
        if int(m.group(2)) >= len(rows):
            raise SelectorError(
                f"index [{m.group(2)}] out of range for {m.group(1)!r} ({len(rows)} rows)"
            )
        return [rows[int(m.group(2))]]
    if selector == "base":
        return [Variant("base", root.get("base"), _name(root.get("base")))]
    if "*" in selector or "?" in selector:
        matched = [k for k in sorted(overrides + zips) if fnmatch.fnmatch(k, selector)]
        if not matched:
            raise SelectorError(f"no variants match {selector!r}")
        return [
            v
            for k in matched
            for v in (_zip_group(root, k) if k.startswith("zip_") else [_override(root, k)])
        ]
    if selector not in keys:
        raise SelectorError(
            f"override {selector!r} not found; available: {', '.join(overrides + zips) or 'none'}"
        )
    if selector.startswith("zip_override_"):
        return _zip_group(root, selector)
    return [_override(root, selector)]
