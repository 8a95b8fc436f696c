"""Findings of many renderings of one source line merged into one."""

from __future__ import annotations

from collections.abc import Iterable

from servelint.model import Finding


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (rule, place, message), listing every rendering affected."""
    merged: dict[tuple, Finding] = {}
    listed: dict[tuple, set[str]] = {}  # the renderings a merged finding lists (a set: fast)
    for f in findings:
        key = f.key() + (f.release,)
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
