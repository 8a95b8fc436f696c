"""Findings of many renderings of one source line merged into one."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from servelint.model import Finding
from servelint.sources.registry import READERS

_QUOTED = re.compile(r'"[^"]*"')

# rules whose verdict reads nothing of the release (a runtime install line): one finding per
# place and message, not one per release the launches there are judged against (a line
# before a launch pinned to one of nine releases gave nine); it keeps the first release
RELEASE_FREE = frozenset({"SL161"})


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (rule, place, message, release), listing every rendering affected."""
    merged: dict[tuple, Finding] = {}
    listed: dict[tuple, set[str]] = {}  # the renderings a merged finding lists (a set: fast)
    for f in findings:
        key = f.key() + ("" if f.code in RELEASE_FREE else f.release,)
        have = merged.get(key)
        if have is None:
            merged[key] = f
            continue
        known = listed.get(key)
        if known is None:
            known = listed[key] = set(have.renderings)
        for r in f.renderings:
            if r not in known:
                known.add(r)
                have.renderings.append(r)
        have.severity = max(have.severity, f.severity)
    return sorted(merged.values(), key=lambda f: (f.span.sort_key(), f.code, f.message))


def join_same_place(findings: list[Finding]) -> list[Finding]:
    """Findings of one rule at one place whose messages differ only in the first quoted name
    (a strategy line that adds ``--nnodes``, ``--node-rank`` and ``--master-addr``: one cause,
    one edit) joined into one: ``flag "--nnodes" (also "--node-rank", "--master-addr") does
    not exist …``. Run after ``merge``: each input already lists its renderings."""
    groups: dict[tuple, list[Finding]] = {}
    order: list[tuple] = []
    for f in findings:
        quoted = _QUOTED.search(f.message)
        key = (
            f.code, f.span.path, f.span.line, f.span.column, f.severity, f.fix, f.release,
            _QUOTED.sub('""', f.message, count=1) if quoted else id(f),
        )
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    out = []
    for key in order:
        group = groups[key]
        first = group[0]
        if len(group) > 1:
            names = [m.group(0) for f in group[1:] if (m := _QUOTED.search(f.message))]
            quoted = _QUOTED.search(first.message)
            assert quoted is not None  # (grouped by it)
            first.message = (
                f"{first.message[: quoted.end()]} (also {', '.join(dict.fromkeys(names))})"
                f"{first.message[quoted.end():]}"
            )
            for f in group[1:]:
                first.renderings += [r for r in f.renderings if r not in first.renderings]
                first.related += [s for s in f.related if s not in first.related]
        out.append(first)
    return out


def name_the_launch(unit_path: str, findings: list[Finding]) -> None:
    """A finding of a launch placed in a support file (a shared strategy file a recipe
    renders with, read only through the recipes: ``Reader.support_file``) names the unit whose
    launch it is, so the reader knows which recipe to fix: `` (rendered for
    models/org/model.yaml)``."""
    def support(path: str) -> bool:
        return any(
            getattr(r, "support_file", None) and r.support_file(Path(path)) for r in READERS
        )

    if not os.path.isfile(unit_path):
        return  # a checkout read as one unit: its launches' files are what it lists
    for f in findings:
        if f.renderings and f.span.path and f.span.path != unit_path and support(f.span.path):
            try:
                common = os.path.commonpath([unit_path, f.span.path])
            except ValueError:
                common = ""
            shown = os.path.relpath(unit_path, common) if common else unit_path
            f.message += f" (rendered for {shown})"
