"""Per-file notes: findings that say one thing about a whole file are reported once.

``release-unresolved`` (SL142) says a launch's release could not be pinned down; a
Markdown guide with twelve ``vllm serve`` blocks and no image, or a recipe rendered for
many GPUs, used to repeat it per launch. It now comes once per file, at the first launch,
with the other launches as related spans and every distinct reason in the message: the
same facts, in one note. Applied after inline ignores, so an ignore still covers one
launch.
"""

from __future__ import annotations

from collections.abc import Iterable

from servelint.model import Finding

PER_FILE_CODES = frozenset({"SL142"})


def one_note_per_file(findings: Iterable[Finding]) -> list[Finding]:
    out: list[Finding] = []
    firsts: dict[tuple[str, str], Finding] = {}
    reasons: dict[tuple[str, str], list[str]] = {}
    seen: dict[tuple[str, str], tuple[set, set]] = {}  # (spans, renderings) of each first
    for f in findings:
        if f.code not in PER_FILE_CODES:
            out.append(f)
            continue
        key = (f.code, f.span.path)
        first = firsts.get(key)
        if first is None:
            firsts[key] = f
            reasons[key] = [f.message]
            seen[key] = ({f.span, *f.related}, set(f.renderings))
            out.append(f)
            continue
        spans, renderings = seen[key]
        if f.span not in spans:
            spans.add(f.span)
            first.related.append(f.span)
        if f.message not in reasons[key]:
            reasons[key].append(f.message)
        first.severity = max(first.severity, f.severity)
        for r in f.renderings:
            if r not in renderings:
                renderings.add(r)
                first.renderings.append(r)
    for key, first in firsts.items():
        launches = len({first.span, *first.related})
        if launches > 1 or len(reasons[key]) > 1:
            first.message = (
                f"{launches} launches in this file: " if launches > 1 else ""
            ) + "; ".join(reasons[key])
    return out
