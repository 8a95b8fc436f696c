"""One ``servelint check --fix`` / ``--diff`` run: check, fix, re-check until nothing changes.

Exit codes (ruff's): ``--diff`` exits 1 when it would change a file, 0 otherwise, and
prints only the diff (the summary goes to stderr); ``--fix`` writes the files, then reports
what remains and exits as ``check`` does on it (1 when an error remains). Fixes run in
passes (at most ``MAX_PASSES``): a fix skipped because it overlapped another is retried on
the re-checked file, so one ``--fix`` reaches the state a second run leaves unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from servelint.fixes import FileFix, fix_findings, unreadable_files, wanted, write_atomic
from servelint.model import Finding

MAX_PASSES = 10


@dataclass(slots=True)
class FixRun:
    """What a ``--fix`` run changed, over all its passes."""

    files: dict[str, FileFix] = field(default_factory=dict)  # path -> first original, last text
    fixed: int = 0  # findings whose fix was applied
    refused: int = 0  # fixes refused: file with read problems, or unreadable
    passes: int = 0

    def record(self, result: FileFix) -> None:
        have = self.files.get(result.path)
        if have is None:
            self.files[result.path] = result
        else:
            have.fixed = result.fixed
            have.applied += result.applied
        self.fixed += len(result.applied)


def run_fixes(
    check: Callable[[list[str]], list[Finding]],
    paths: list[str],
    *,
    unsafe: bool,
    write: bool,
    select: Callable[[list[Finding]], list[Finding]] = lambda found: found,
) -> tuple[FixRun, list[Finding]]:
    """Fix what ``check(paths)`` finds (the findings ``select`` keeps; read problems of any
    severity refuse a file); returns the run and every finding after it."""
    findings = check(paths)
    run = FixRun()
    while run.passes < MAX_PASSES:
        results, refused = fix_findings(
            select(findings), unsafe=unsafe, unreadable=unreadable_files(findings)
        )
        run.refused = max(run.refused, refused)
        changed = [r for r in results if r.changed]
        if not changed:
            break
        run.passes += 1
        for result in changed:
            run.record(result)
            if write:
                write_atomic(result.path, result.fixed)
        if not write:
            break  # --diff: one pass over the files as they are on disk
        findings = check(paths)
    return run, findings


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
