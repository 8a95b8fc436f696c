"""Run independent reader jobs in forked worker processes, when that is safe and pays.

Safe means: this process is not itself a worker (a pool inside a pool would oversubscribe
the cores the outer pool already uses, and a daemonic process may not have children),
``fork`` exists, and there are at least two usable cores. Otherwise callers run serially.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def may_fork() -> bool:
    """Whether this process may start a worker pool of its own."""
    if mp.parent_process() is not None or mp.current_process().daemon:
        return False
    if "fork" not in mp.get_all_start_methods():
        return False
    return usable_cores() >= 2


def map_in_workers(fn: Callable[[T], R], jobs: Sequence[T],
                   weights: Sequence[float]) -> list[R] | None:
    """``[fn(job) for job in jobs]`` computed by forked workers, heaviest jobs first (so the
    cores finish together); None when a pool cannot be used (the caller runs serially).
    ``fn`` must be a module-level function; jobs and results must pickle."""
    if len(jobs) < 2 or not may_fork():
        return None
    import concurrent.futures as cf

    order = sorted(range(len(jobs)), key=lambda i: -weights[i])
    try:
        with cf.ProcessPoolExecutor(max_workers=min(usable_cores(), len(jobs)),
                                    mp_context=mp.get_context("fork")) as pool:
            done = list(pool.map(fn, [jobs[i] for i in order], chunksize=1))
    except (OSError, cf.process.BrokenProcessPool):
        return None
    out: list[R | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        out[i] = result
    return out  # type: ignore[return-value]
