"""A safe fix is safe only if re-checking shows it: the file's units, re-checked in memory
with the fixed text standing in for the file, hold no finding that was not there before
(the fixed findings may go, nothing may come). A safe fix that adds one is demoted to
unsafe, with the finding it adds named in its description; ``--fix`` then leaves it to
``--unsafe-fixes``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable, Iterable
from typing import Any

from servelint.fixes import read_exact
from servelint.fixes.edits import apply_fixes
from servelint.model import Finding, FixSafety, Severity

# check(paths, texts): the report of ``paths`` with ``texts`` ({path: text}) standing in
# for the files on disk (no cached result of a unit that reads one)
Checker = Callable[[list[str], dict[str, str]], Any]


def fix_key(f: Finding) -> tuple[str, str, str, str]:
    """A fix's identity across passes (its spans move when other edits land)."""
    fix = f.autofix
    return (f.code, fix.path if fix else "", f.message, fix.description if fix else "")


def demote(findings: Iterable[Finding], demoted: dict[tuple, str]) -> list[Finding]:
    """``findings`` with every demoted safe fix made unsafe, its reason appended."""
    out = []
    for f in findings:
        why = demoted.get(fix_key(f)) if f.autofix is not None else None
        if why and f.autofix.safety is FixSafety.SAFE:  # type: ignore[union-attr]
            f.autofix = dataclasses.replace(
                f.autofix, safety=FixSafety.UNSAFE,
                description=f"{f.autofix.description} (unsafe: {why})",  # type: ignore[union-attr]
            )
        out.append(f)
    return out


def _line_map(before: str, after: str) -> dict[int, int]:
    """After-text line -> before-text line (1-based): unchanged lines to themselves, a
    changed line to the line it replaced."""
    old, new = before.splitlines(), after.splitlines()
    out: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            i = i1 + (j - j1) if tag == "equal" else i1 + min(j - j1, max(i2 - i1 - 1, 0))
            out[j + 1] = i + 1
    return out


def added(before: Iterable[Finding], after: Iterable[Finding],
          texts_before: dict[str, str], texts_after: dict[str, str]) -> list[Finding]:
    """The findings of ``after`` that ``before`` does not hold: no finding of the same
    rule on the same source line (the line an edited line replaced) with at least the
    same severity. A message that restates an edited value (a floor, a range) is the same
    finding; a new one, or a raised severity, is not."""
    maps: dict[str, dict[int, int]] = {}

    def where(f: Finding, mapped: bool) -> tuple[str, str, int]:
        path = f.span.path
        line = f.span.line
        if mapped and texts_after.get(path) != texts_before.get(path):
            if path not in maps:
                old = texts_before.get(path)
                base = old if old is not None else read_exact(path) or ""
                maps[path] = _line_map(base,
                                       texts_after.get(path) or read_exact(path) or "")
            line = maps[path].get(line, line)
        return (f.code, os.path.abspath(path), line)

    pool: dict[tuple[str, str, int], list[Severity]] = {}
    for f in before:
        pool.setdefault(where(f, False), []).append(f.severity)
    out = []
    for f in sorted(after, key=lambda f: f.severity, reverse=True):
        have = pool.get(where(f, True), [])
        match = [s for s in have if s >= f.severity]
        if match:
            have.remove(min(match))
        else:
            out.append(f)
    return out


def units_reading(report: Any, paths: Iterable[str]) -> list[str]:
    """The units of ``report`` that read any of ``paths`` (the unit's own file included)."""
    wanted = {os.path.abspath(p) for p in paths}
    return [
        u.path for u in report.units
        if os.path.abspath(u.path) in wanted or wanted.intersection(u.deps)
    ]


def new_findings(check: Checker, units: list[str], texts: dict[str, str],
                 candidate: dict[str, str]) -> list[Finding]:
    """What re-checking ``units`` with ``candidate`` over ``texts`` adds."""
    if not units:
        return []
    before = check(units, texts).findings
    merged = {**texts, **candidate}
    return added(before, check(units, merged).findings, texts, merged)


def describe(found: list[Finding]) -> str:
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"on re-check it adds {first.code} {first.severity} "
            f"\"{first.message[:80]}\"{more}")


def blame(check: Checker, report: Any, texts: dict[str, str], result: Any,
          unsafe: bool) -> dict[tuple, str]:
    """The safe fixes of ``result`` (a ``FileFix``) that add a finding on their own, each
    with why; every safe fix of the file when none does alone but together they do."""
    units = units_reading(report, [result.path])
    before = check(units, texts).findings
    merged = {**texts, result.path: result.fixed}
    if not added(before, check(units, merged).findings, texts, merged):
        return {}  # what the re-check added came from another file's edits
    found: dict[tuple, str] = {}
    safe = {fix_key(f): f for f in result.applied
            if f.autofix is not None and f.autofix.safety is FixSafety.SAFE}
    for key, f in safe.items():
        alone, applied, _ = apply_fixes(result.original, [f.autofix],  # type: ignore[list-item]
                                        yaml=result.path.endswith((".yaml", ".yml")))
        if not applied:
            continue
        merged = {**texts, result.path: alone}
        extra = added(before, check(units, merged).findings, texts, merged)
        if extra:
            found[key] = describe(extra)
    if found or unsafe and len(safe) < len(result.applied):
        return found  # (with --unsafe-fixes an unsafe fix may add what it adds)
    return {key: "on re-check the file's fixes together add a finding" for key in safe}
