"""Sweep recipes: a ``sweep:`` block of parameter lists -> one variant per combination.

Mirrors srtctl's ``generate_sweep_configs`` / ``expand_template`` (srt-slurm
``src/srtctl/core/sweep.py`` at c88ef731), which ``submit_sweep`` runs for a recipe holding a
``sweep`` key (also per override variant, ``cli/submit.py`` ``submit_override``):

- the combinations are ``itertools.product`` over the sweep's values in key order (the
  schema's ``SweepConfig`` with its ``zip`` mode is not what submission uses);
- the ``sweep`` key is dropped and every *string* in the rest (keys are not) has each
  ``{param}`` replaced by ``str(value)`` -- Python's spelling, so ``true`` becomes
  ``"True"``, a string, which the command builder passes as a value; a list value replaces a
  string that is exactly the placeholder, else it is joined with ``,``;
- the variant is named ``<name>_<k><v>_...``; the schema then loads the result, which turns
  the integer fields of ``resources`` written as ``"{n}"`` back into integers.

Substituted scalars keep the span of the string that held the placeholder, so a finding
points at ``"{ep}"`` and its rendering names the combination.
"""

from __future__ import annotations

import itertools
import re

from servelint.sources.common.problems import ReadProblem
from servelint.sources.srt_slurm.command import py_str
from servelint.sources.srt_slurm.tree import Entry, Node
from servelint.sources.srt_slurm.variants import Variant

# more combinations than this are not judged one by one (each is a set of launches)
MAX_ARMS = 256
# ResourceConfig's integer fields (srt-slurm core/schema.py): marshmallow's Integer loads "4"
_INT_RESOURCES = re.compile(r"gpus_per_\w+|\w+_nodes|\w+_workers")
_INT_TEXT = re.compile(r"[+-]?\d+")


def _values(node: Node) -> list[Node] | None:
    """What ``itertools.product`` iterates for one sweep entry (None: not iterable)."""
    if node.is_list:
        return list(node.value)  # type: ignore[arg-type]
    if node.is_map:
        return [Node(k, e.key_span) for k, e in node.entries()]
    if isinstance(node.value, str):
        return [Node(c, node.span) for c in node.value]
    return None


def _expand(node: Node, params: list[tuple[str, Node]]) -> Node:
    """``expand_template`` over a recipe node."""
    if node.is_map:
        return Node(
            {k: Entry(e.key_span, _expand(e.node, params), e.raw_key) for k, e in node.entries()},
            node.span,
        )
    if node.is_list:
        return Node([_expand(n, params) for n in node.value], node.span)  # type: ignore[union-attr]
    if not isinstance(node.value, str):
        return node
    text = node.value
    for key, value in params:
        mark = "{" + key + "}"
        if value.is_list:
            if mark in text and text == mark:
                return Node([Node(n.value, node.span) for n in value.value], node.span)  # type: ignore[union-attr]
            text = text.replace(mark, ",".join(py_str(n.plain()) for n in value.value))  # type: ignore[union-attr]
        else:
            text = text.replace(mark, py_str(value.plain()))
    return node if text == node.value else Node(text, node.span)


def _load_resources(root: Node) -> Node:
    """The schema's load of ``resources``: an integer field written as a digit string."""
    res = root.get("resources")
    if res is None or not res.is_map:
        return root
    fixed = {
        k: (
            Entry(e.key_span, Node(int(e.node.value), e.node.span), e.raw_key)
            if _INT_RESOURCES.fullmatch(k)
            and isinstance(e.node.value, str)
            and _INT_TEXT.fullmatch(e.node.value.strip())
            else e
        )
        for k, e in res.entries()
    }
    out = dict(root.value)  # type: ignore[arg-type]
    out["resources"] = Entry(root.value["resources"].key_span, Node(fixed, res.span))  # type: ignore[index]
    return Node(out, root.span)


def arms(path: str, variant: Variant, problems: list[ReadProblem]) -> list[Variant]:
    """The variants srtctl submits for one (override) variant: itself without a sweep."""
    sweep = variant.root.get("sweep")
    if sweep is None:
        return [variant]
    if not sweep.is_map:
        why = "srtctl's generate_sweep_configs needs a mapping of parameter lists"
        problems.append(ReadProblem(path, sweep.span, f"sweep: {why}", "unresolved"))
        return []
    names, lists = [], []
    for key, entry in sweep.entries():
        values = _values(entry.node)
        if values is None:
            kind = type(entry.node.value).__name__
            why = f"sweep.{key} is a {kind}, not a list: srtctl's itertools.product fails on it"
            problems.append(ReadProblem(path, entry.node.span, why, "unresolved"))
            return []
        names.append(key)
        lists.append(values)
    total = 1
    for values in lists:
        total *= len(values)
    if total == 0:
        why = "sweep has an empty list: srtctl generates no job from this recipe"
        problems.append(ReadProblem(path, sweep.span, why, "unresolved"))
        return []
    if total > MAX_ARMS:
        why = f"sweep has {total} combinations; the first {MAX_ARMS} are judged"
        problems.append(ReadProblem(path, sweep.span, why, "budget"))
    base = {k: e for k, e in variant.root.entries() if k != "sweep"}
    out = []
    for combo in itertools.islice(itertools.product(*lists), MAX_ARMS):
        params = list(zip(names, combo, strict=True))
        root = _load_resources(_expand(Node(base, variant.root.span), params))
        tag = "_".join(f"{k}{py_str(v.plain())}" for k, v in params)
        label = f"{variant.label} {tag}" if variant.label else tag
        out.append(Variant(label, root, f"{variant.name}_{tag}"))
    return out

