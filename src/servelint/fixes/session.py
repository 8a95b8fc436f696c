"""One ``servelint check --fix`` / ``--diff`` run: check, fix, re-check until nothing changes.

Exit codes (ruff's): ``--diff`` exits 1 when it would change a file, 0 otherwise, and
prints only the diff (the summary goes to stderr); ``--fix`` writes the files, then reports
what remains and exits as ``check`` does on it (1 when an error remains). Fixes run in
passes (at most ``MAX_PASSES``): a fix skipped because it overlapped another is retried on
the re-checked file, so one ``--fix`` reaches the state a second run leaves unchanged.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import servelint.pipeline.cache as result_cache
from servelint.check import check_paths
from servelint.fixes import FileFix, fix_findings, unreadable_files, wanted, write_atomic
from servelint.fixes.verify import Checker, blame, demote, new_findings, units_reading
from servelint.model import Finding
from servelint.sources.common import overlay
from servelint.sources.recipe import load

MAX_PASSES = 10


@dataclass(slots=True)
class FixRun:
    """What a ``--fix`` run changed, over all its passes."""

    files: dict[str, FileFix] = field(default_factory=dict)  # path -> first original, last text
    fixed: int = 0  # findings whose fix was applied
    refused: int = 0  # fixes refused: file with read problems, or unreadable
    passes: int = 0
    # safe fixes made unsafe (rule, file, message, fix) -> the finding re-checking showed
    demoted: dict[tuple, str] = field(default_factory=dict)

    def record(self, result: FileFix) -> None:
        have = self.files.get(result.path)
        if have is None:
            self.files[result.path] = result
        else:
            have.fixed = result.fixed
            have.applied += result.applied
        self.fixed += len(result.applied)


def run_fixes(
    check: Checker,
    paths: list[str],
    *,
    unsafe: bool,
    write: bool,
    select: Callable[[list[Finding]], list[Finding]] = lambda found: found,
) -> tuple[FixRun, Any]:
    """Fix what ``check(paths, {})`` finds (the findings ``select`` keeps; read problems of
    any severity refuse a file), in passes computed in memory: each pass's edits are
    verified (``verify``) and re-checked with the fixed texts standing in for the files.
    ``--diff`` and ``--fix`` run this same computation; only ``write`` differs. Returns the
    run and the last report (what the files hold after it)."""
    report = check(paths, {})
    texts: dict[str, str] = {}  # the fixed text of every file changed so far
    demoted: dict[tuple, str] = {}
    run = FixRun()
    for _ in range(2 * MAX_PASSES):  # a pass that only demotes does not count as one
        findings = demote(report.findings, demoted)
        results, refused = fix_findings(
            select(findings), unsafe=unsafe, unreadable=unreadable_files(findings), texts=texts
        )
        run.refused = max(run.refused, refused)
        changed = [r for r in results if r.changed]
        if not changed or run.passes >= MAX_PASSES:
            break
        accepted = _verified(check, report, texts, changed, unsafe, demoted)
        if not accepted:
            continue
        run.passes += 1
        for result in accepted:
            run.record(result)
            texts[result.path] = result.fixed
        report = check(paths, texts)
    report.findings = demote(report.findings, demoted)
    run.demoted = demoted
    if write:
        for path in sorted(texts):
            write_atomic(path, texts[path])
        forget_file_contents()
    return run, report


def forget_file_contents() -> None:
    """Drop what this process remembers of file contents (texts, digests, recipe repos):
    a later check in the same process reads the files as written."""
    result_cache.forget_digests()
    load._load_repo.cache_clear()


def checker(options: Any) -> Checker:
    """A ``Checker`` over ``check_paths`` with ``options``."""
    def check(paths: list[str], texts: dict[str, str]) -> Any:
        with overlay.stand_in(texts):
            return check_paths(paths, options)

    return check


def _verified(check: Checker, report: Any, texts: dict[str, str], changed: list[FileFix],
              unsafe: bool, demoted: dict[tuple, str]) -> list[FileFix]:
    """The changed files whose edits re-check clean; the safe fixes that add a finding are
    entered in ``demoted`` (their files are fixed again without them next pass)."""
    units = units_reading(report, [r.path for r in changed])
    extra = new_findings(check, units, texts, {r.path: r.fixed for r in changed})
    if not extra:
        return changed
    hit = {os.path.abspath(f.span.path) for f in extra}
    accepted = []
    for result in changed:
        if hit.isdisjoint(_read_by(report, result.path)):
            accepted.append(result)
            continue
        blamed = blame(check, report, texts, result, unsafe)
        if blamed:
            demoted.update(blamed)
        else:
            accepted.append(result)
    return accepted


def _read_by(report: Any, path: str) -> set[str]:
    """Every file the units reading ``path`` read: where an edit of it can show."""
    wanted = os.path.abspath(path)
    return {
        d for u in report.units
        if os.path.abspath(u.path) == wanted or wanted in u.deps
        for d in (*u.deps, os.path.abspath(u.path))
    }


def summary(run: FixRun, findings: list[Finding], *, unsafe: bool, write: bool) -> str:
    changed = [f for f in run.files.values() if f.changed]
    verb = "fixed" if write else "would fix"
    text = (
        f"servelint: {verb} {run.fixed} finding{'s' * (run.fixed != 1)} in "
        f"{len(changed)} file{'s' * (len(changed) != 1)}"
    )
    if not unsafe:
        hidden = sum(
            1 for f in findings if wanted(f.autofix, True) and not wanted(f.autofix, False)
        )
        if hidden:
            text += f"; {hidden} more with --unsafe-fixes"
    if run.demoted:
        n = len(run.demoted)
        text += (f"; {n} safe fix{'es' * (n != 1)} demoted to unsafe "
                 "(re-checking showed a new finding)")
    if run.refused:
        text += f"; {run.refused} not applied (file with read problems, or text changed)"
    return text


def print_diff(run: FixRun, out: TextIO) -> None:
    for path in sorted(run.files):
        result = run.files[path]
        if result.changed:
            out.write(result.diff())


def report_line(message: str) -> None:
    print(message, file=sys.stderr)
