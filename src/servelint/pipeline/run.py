"""Jobs -> results: unchanged units from the cache, the rest checked in one worker pool.

A unit whose reader reads it in parts (an InferenceX checkout: one part per launcher
script) is expanded here, after a cache miss, and its parts join the other jobs in the
pool; the unit's result is assembled from them in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import servelint.pipeline.cache as cache
from servelint.pipeline.discover import Job
from servelint.pipeline.options import Options
from servelint.pipeline.read import refused
from servelint.pipeline.unit import FileResult, PartResult, assemble, check_part, check_unit
from servelint.sources.base import Expansion, ReadContext
from servelint.sources.common import deps, overlay

PARALLEL_MIN_TASKS = 16  # below this, starting workers costs more than it saves


@dataclass(slots=True, eq=False)
class Tally:
    """Files done out of files planned, and launches judged: what progress shows."""

    total: int
    on_done: Callable[[int, int, int], None] | None = None
    done: int = 0
    launches: int = 0

    def plan(self, more: int) -> None:
        """A unit turned out to hold ``more`` files more (its parts)."""
        self.total += more

    def finished(self, files: int = 1, launches: int = 0) -> None:
        self.done += files
        self.launches += launches
        if self.on_done is not None and files:
            self.on_done(self.done, self.total, self.launches)


@dataclass(slots=True, eq=False, repr=False)
class _Split:
    """A unit read in parts: its expansion, the files the expansion read, the parts done."""

    expansion: Expansion
    key: str | None
    deps: list[str]
    parts: list[PartResult] = field(default_factory=list)


def _store(key: str | None, result: FileResult) -> None:
    if key is None or overlay.active():  # (a result read from stand-in texts: not the disk's)
        return
    stamps = cache.fingerprints(result.deps)
    if stamps is not None:
        result.stamps = stamps
        cache.store(key, result)


def _task(args: tuple, ctx: ReadContext) -> FileResult | PartResult:
    """One pool task: a whole unit (checked and stored) or one part of a unit."""
    if args[0] == "unit":
        _, job, options, key = args
        result = check_unit(job, options, ctx)
        _store(key, result)
        return result
    _, job, part, options = args
    return check_part(job, part, options, ctx)


# A worker process's own read context, made when the pool of one run starts the worker
# (``_start_worker``) and gone with it: the context is not sent along with each task.
_worker_ctx: ReadContext | None = None


def _start_worker() -> None:
    global _worker_ctx
    _worker_ctx = ReadContext()


def _worker_task(args: tuple) -> FileResult | PartResult:
    assert _worker_ctx is not None
    return _task(args, _worker_ctx)


def _cached(job: Job, options: Options) -> tuple[FileResult | None, str | None]:
    if not options.use_cache or job.reader is None:
        return None, None
    key = cache.key_for(job.path, job.reader.name, options)
    if key is None:
        return None, None
    # (JSON lists the launches)
    hit = cache.load(key, FileResult, launches=bool(options.works_on))
    if isinstance(hit, FileResult) and cache.unchanged(hit.stamps):
        if overlay.touches([os.path.abspath(job.path), *(p for p, _ in hit.stamps)]):
            return None, None  # --fix re-checking a text it has not written: read afresh
        return hit, key
    return None, key


def _expand(job: Job, ctx: ReadContext) -> Expansion | None:
    expand = getattr(job.reader, "expand", None)
    if expand is None or (not os.path.isdir(job.path) and refused(job.path) is not None):
        return None
    return expand(job.path, ctx)


def run_jobs(jobs: list[Job], options: Options, tally: Tally | None = None) -> list[FileResult]:
    """One result per job, in order; ``tally`` is told as each file (a unit, or a part of a
    unit read in parts) is done, with its launches."""
    if tally is None:
        tally = Tally(len(jobs))
    results: list[FileResult | None] = [None] * len(jobs)
    splits: dict[int, _Split] = {}
    tasks: list[tuple[int, int, tuple]] = []  # (weight, unit index, task)
    ctx = ReadContext()  # the run's (a worker process makes its own)
    for i, job in enumerate(jobs):
        hit, key = _cached(job, options)
        if hit is not None:
            results[i] = hit
            tally.finished(1, hit.launch_count)
            continue
        with deps.recording() as seen:
            expansion = _expand(job, ctx)
        if expansion is None:
            tasks.append((1, i, ("unit", job, options, key)))
            continue
        if not os.path.isdir(job.path):
            seen.add(os.path.abspath(job.path))
        splits[i] = _Split(expansion, key, sorted(seen))
        tasks += [(part.weight, i, ("part", job, part, options)) for part in expansion.parts]
        tally.plan(len(expansion.parts) - 1)

    def finished(n: int, done: FileResult | PartResult) -> None:  # progress, per file
        if isinstance(done, PartResult):
            tally.finished(1, sum(len(slot[3]) for slot in done.slots))
        else:
            tally.finished(1, done.launch_count)

    for (_, i, _), done in zip(tasks, _run(tasks, options, ctx, finished), strict=True):
        if isinstance(done, PartResult):
            splits[i].parts.append(done)
        else:
            results[i] = done
    for i, split in splits.items():
        results[i] = assemble(jobs[i], split.expansion, split.parts, split.deps)
        _store(split.key, results[i])
    return results  # type: ignore[return-value]


def _run(
    tasks: list[tuple[int, int, tuple]],
    options: Options,
    ctx: ReadContext,
    finished: Callable[[int, Any], None] = lambda n, done: None,
) -> list[Any]:
    """Every task's result, in task order: in worker processes when there are enough;
    ``finished(n, result)`` as task ``n`` completes."""
    workers = min(options.jobs or (os.cpu_count() or 1), len(tasks))
    if workers <= 1 or len(tasks) < PARALLEL_MIN_TASKS:
        serial = []
        for n, (_, _, args) in enumerate(tasks):
            serial.append(_task(args, ctx))
            finished(n, serial[-1])
        return serial
    # (worker processes only: a serial or cached run never imports them)
    import concurrent.futures as cf
    import multiprocessing as mp

    # heaviest first, so that the workers finish together
    order = sorted(range(len(tasks)), key=lambda n: -tasks[n][0])
    chunk = 1 if any(w > 1 for w, _, _ in tasks) else 4
    with cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=mp.get_context("fork"), initializer=_start_worker
    ) as pool:
        out: list[Any] = [None] * len(tasks)
        results = pool.map(_worker_task, [tasks[n][2] for n in order], chunksize=chunk)
        for n, result in zip(order, results, strict=True):
            out[n] = result
            finished(n, result)
    return out
