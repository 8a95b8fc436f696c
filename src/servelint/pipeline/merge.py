"""Findings of many renderings of one source line merged into one."""

from __future__ import annotations

from collections.abc import Iterable

from servelint.model import Finding

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
