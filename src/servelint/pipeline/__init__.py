"""The check pipeline: paths -> jobs -> launch specs -> releases -> rules -> findings.

``discover`` asks the reader registry which reader reads each path; ``run`` reads and
judges each job (cache first, then one worker pool); ``judge`` resolves each launch's
releases and runs the rules; findings of many renderings merge (``merge``); inline ignores
and the config apply last (``control``).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servelint.model import Finding
from servelint.pipeline.condense import one_finding_per_cause, one_note_per_file
from servelint.pipeline.control import apply_control
from servelint.pipeline.discover import discover
from servelint.pipeline.launch_report import LaunchReport
from servelint.pipeline.merge import merge
from servelint.pipeline.options import Options
from servelint.pipeline.run import Tally, run_jobs
from servelint.pipeline.unit import FileResult

__all__ = ["CheckReport", "FileResult", "LaunchReport", "Options", "check_paths", "check_text"]


@dataclass(slots=True, eq=False, repr=False)
class CheckReport:
    """The outcome of one check: its findings, the units checked and their launches."""

    findings: list[Finding] = field(default_factory=list)
    units: list[FileResult] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    ignored: list[Finding] = field(default_factory=list)

    @property
    def launches(self) -> list[LaunchReport]:
        return [lr for unit in self.units for lr in unit.all_launches()]

    def launch_items(self) -> list[Any]:
        """What the JSON report lists under ``launches`` (``FileResult.launch_items``)."""
        return [item for unit in self.units for item in unit.launch_items()]

    @property
    def profiles_used(self) -> list[str]:
        return sorted({label for unit in self.units for label in unit.judged})


def check_paths(
    paths: Iterable[str],
    options: Options | None = None,
    on_done: Callable[[int, int, int], None] | None = None,
) -> CheckReport:
    """Check ``paths``; ``on_done(files done, files in all, launches done)`` is told as
    files finish (progress): a unit read in parts counts each part (a launcher script)."""
    options = options or Options()
    report = CheckReport()
    t0 = time.perf_counter()
    jobs = list(discover(paths, options))
    done = run_jobs(jobs, options, Tally(len(jobs), on_done))  # one pool over every job
    # units that bind other files (master configs) come first; a launcher they bound is
    # not reported again on its own, nor a launcher read with the rows that bind it (itself
    # such a unit) when a named checkout or master config bound it too
    binds = [bool(getattr(j.reader, "binds", False)) for j in jobs]
    real = [os.path.realpath(j.path) for j in jobs]
    bound = {p for r, b in zip(done, binds, strict=True) if b for p in r.bound}
    results = [r for r, b, own in zip(done, binds, real, strict=True) if b and own not in bound]
    results += [r for r, b, own in zip(done, binds, real, strict=True) if not b and own not in bound]
    report.files = [r.path for r in results]
    report.units = results
    findings = merge(f for r in results for f in r.findings)
    report.findings = one_note_per_file(apply_control(findings, options, report))
    if options.one_per_cause:
        report.findings = one_finding_per_cause(report.findings)
    report.stats = {
        "files": len(report.files),
        "kinds": _kinds(jobs, results),
        "launches": sum(r.launch_count for r in results),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return report


def counted_files(unit: FileResult) -> list[str]:
    """The files a user counts for one unit: for a folder (an InferenceX checkout) every
    file it read (master configs, launcher scripts, the helpers they source), not the
    folder as "1 file"; for a master config, it and the launchers it bound; else the file,
    when read (a path no reader read, or a missing one, is said, not counted)."""
    if os.path.isdir(unit.path):
        return [d for d in unit.deps if os.path.isfile(d)]
    if not unit.deps:
        return []
    return [os.path.abspath(p) for p in (unit.path, *unit.bound)]


def _kinds(jobs: list, results: list[FileResult]) -> dict[str, int]:
    """The files ``counted_files`` counts, per file kind (the reader's name), most first."""
    reader_of = {j.path: j.reader.name for j in jobs if j.reader is not None}
    counts: dict[str, int] = {}
    for r in results:
        n = len(counted_files(r))
        if n:
            kind = reader_of.get(r.path, "other")
            counts[kind] = counts.get(kind, 0) + n
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def check_text(
    text: str,
    kind: str,
    filename: str = "example",
    options: Options | None = None,
) -> CheckReport:
    """Check a snippet (docs examples, tests): written to a temporary file first."""
    suffix = {"bash": ".sh", "yaml": ".yaml", "markdown": ".md", "srtslurm": ".yaml"}.get(kind, "")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / ("models/org" if kind == "yaml" else "")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (Path(filename).stem + suffix)
        path.write_text(text, encoding="utf-8")
        return check_paths([str(path)], options)
