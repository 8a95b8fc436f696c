"""Findings of many renderings of one source line merged into one."""

from __future__ import annotations

from collections.abc import Iterable

from servelint.model import Finding


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (rule, place, message), listing every rendering affected."""
    merged: dict[tuple, Finding] = {}
    for f in findings:
        key = f.key() + (f.release,)
        if key in merged:
            have = merged[key]
            for r in f.renderings:
                if r not in have.renderings:
                    have.renderings.append(r)
            have.severity = max(have.severity, f.severity)
        else:
            merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.span.sort_key(), f.code, f.message))
