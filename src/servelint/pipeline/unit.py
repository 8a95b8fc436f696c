"""One job -> its result: read, each launch judged (and, for JSON, its works-on range), the
findings merged. A ``FileResult`` is what the cache keeps and workers send back."""

from __future__ import annotations

import os
import pickle  # only our own worker processes' results (--jobs)
from dataclasses import dataclass, field
from typing import Any

from servelint.model import Finding, LaunchSpec, Severity
from servelint.pipeline.cache import launch_reports, load_launch_lines
from servelint.pipeline.discover import Job
from servelint.pipeline.launch_report import LaunchReport
from servelint.pipeline.merge import join_same_place, merge, name_the_launch
from servelint.pipeline.options import Options
from servelint.pipeline.problems import problem_finding
from servelint.pipeline.read import read_job
from servelint.reporters.json_out import Encoded
from servelint.rules import read_error as read_error_rule
from servelint.rules import version_coherence
from servelint.sources.base import Expansion, ReadContext
from servelint.sources.common import deps as deps_mod
from servelint.sources.common.problems import ReadProblem
from servelint.util import budget


@dataclass(slots=True, eq=False, repr=False)
class FileResult:
    """What checking one unit (a file, or an InferenceX checkout) gives; cacheable.

    Its launches travel as one nested blob between worker processes; a cached result keeps
    them in an entry file of their own (``launches_key``), read only when a report lists
    them (JSON): a text run over a cached corpus never reads them."""

    path: str
    findings: list[Finding]
    launches: list[LaunchReport] | None
    bound: list[str] = field(default_factory=list)  # launchers a master config bound
    judged: list[str] = field(default_factory=list)  # profiles the launches were judged on
    launch_count: int = 0
    blob: bytes | None = None
    deps: list[str] = field(default_factory=list)  # every file the reader read
    stamps: list[tuple[str, str]] = field(default_factory=list)  # their digests (cache)
    launches_key: str | None = None  # the cache entry holding the launches, read on demand
    # a cached result's launch summaries as the JSON report writes them (one line each)
    launch_lines: list[str] | None = None

    def launch_items(self) -> list[Any]:
        """The launches as the JSON report lists them: a cached result's lines as they are
        (``json_out.Encoded``), else each summary."""
        if self.launches is None and self.launch_lines is not None:
            return [Encoded(line) for line in self.launch_lines]
        return [lr.summary for lr in self.all_launches()]

    def all_launches(self) -> list[LaunchReport]:
        if self.launches is None:
            if self.blob:
                self.launches = pickle.loads(self.blob)  # from our own worker processes
            elif self.launches_key:
                lines = self.launch_lines
                if lines is None:
                    lines = load_launch_lines(self.launches_key) or []
                self.launches = launch_reports(lines) or []
            else:
                self.launches = []
        return self.launches

    def __getstate__(self) -> tuple:
        blob = (
            self.blob
            if self.launches is None
            else pickle.dumps(self.launches, protocol=pickle.HIGHEST_PROTOCOL)
        )
        return (
            self.path,
            self.findings,
            self.bound,
            self.judged,
            self.launch_count,
            blob,
            self.deps,
            self.stamps,
            self.launches_key if self.launches is None else None,
            self.launch_lines if self.launches is None else None,
        )

    def __setstate__(self, state: tuple) -> None:
        (
            self.path,
            self.findings,
            self.bound,
            self.judged,
            self.launch_count,
            self.blob,
            self.deps,
            self.stamps,
            self.launches_key,
            self.launch_lines,
        ) = state
        self.launches = None


def check_unit(job: Job, options: Options, ctx: ReadContext) -> FileResult:
    read = read_job(job, ctx)
    raw = [problem_finding(p) for p in read.problems]
    with deps_mod.recording() as judged:  # files judging reads (an SGLang --config file)
        found, launches = judge_specs(read.specs, options)
    files = sorted({*read.deps, *judged}) if judged else read.deps
    return unit_result(job.path, raw + found, launches, files, read.bound)


def judge_specs(
    specs: list[LaunchSpec], options: Options
) -> tuple[list[Finding], list[LaunchReport]]:
    """The findings of every launch, in launch order, and their reports."""
    # the judge and the release modules under it (~40 ms of imports, a sixth of a run served
    # from the cache) are imported when a launch is judged, never by a cached run
    from servelint.pipeline.judge import check_spec, launch_summary

    raw: list[Finding] = []
    launches: list[LaunchReport] = []
    shared: dict = {}  # works-on's candidates per argv, for the launches of this file
    words = 0
    for n, spec in enumerate(specs):
        words += len(spec.argv)
        if words > budget.MAX_JUDGED_ARGV_WORDS:
            raw.append(_judge_budget_finding(spec, len(specs) - n))
            break
        deps_mod.note_named_files(spec.argv)
        try:
            found, launch = check_spec(spec, options, shared)
        except RecursionError:
            raw.append(
                Finding(
                    rule=read_error_rule.NAME,
                    code=read_error_rule.CODE,
                    severity=Severity.ERROR,
                    span=spec.anchor,
                    message="launch too deeply nested to check",
                )
            )
            continue
        launch.summary = launch_summary(launch)
        launch.spec = None  # keep results small (cache, worker processes)
        raw.extend(found)
        launches.append(launch)
    return raw, launches


def _judge_budget_finding(spec: LaunchSpec, left: int) -> Finding:
    return Finding(
        rule=read_error_rule.NAME,
        code=read_error_rule.CODE,
        severity=Severity.WARNING,
        span=spec.anchor,
        message=budget.judge_note(left),
    )


def unit_result(
    path: str, raw: list[Finding], launches: list[LaunchReport], deps: list[str], bound: list[str]
) -> FileResult:
    judged = sorted({j.split(" (", 1)[0] for lr in launches for j in lr.judged})
    name_the_launch(path, raw)
    return FileResult(
        path,
        join_same_place(merge(version_coherence.one_per_fix(raw))),
        launches,
        bound=bound,
        judged=judged,
        launch_count=len(launches),
        deps=deps,
    )


# ---------------------------------------------------------------- units read in parts


@dataclass(slots=True, eq=False, repr=False)
class PartResult:
    """One part's slots, judged: (slot, read problems, findings, launch reports) each."""

    slots: list[tuple[int, list[ReadProblem], list[Finding], list[LaunchReport]]]
    deps: list[str]


def check_part(job: Job, part: Any, options: Options, ctx: ReadContext) -> PartResult:
    with deps_mod.recording() as seen:
        reads = job.reader.read_part(part, ctx)  # type: ignore[union-attr]
        out = []
        for index, read in reads:
            found, launches = judge_specs(read.specs, options)
            out.append((index, read.problems, found, launches))
    return PartResult(out, sorted(seen))


def assemble(
    job: Job, expansion: Expansion, parts: list[PartResult], deps: list[str]
) -> FileResult:
    """The unit's result from its parts: problems (each once), then the slots in order."""
    slots: list[Any] = [None] * expansion.slots
    for part in parts:
        for slot in part.slots:
            slots[slot[0]] = slot
    done = [s for s in slots if s is not None]
    problems: list[ReadProblem] = []
    seen: set[tuple] = set()
    for p in [*expansion.problems, *(p for s in done for p in s[1])]:
        if (p.message, p.span, p.path) not in seen:
            seen.add((p.message, p.span, p.path))
            problems.append(p)
    raw = [problem_finding(p) for p in problems] + [f for s in done for f in s[2]]
    launches = [lr for s in done for lr in s[3]]
    # the files whose launches the unit holds, itself not among them (a launcher script
    # read with the rows that bind it)
    bound = sorted({os.path.realpath(lr.summary["path"]) for lr in launches}
                   - {os.path.realpath(job.path)})
    files = sorted({*deps, *(d for part in parts for d in part.deps)})
    return unit_result(job.path, raw, launches, files, bound)
