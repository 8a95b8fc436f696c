"""Run independent reader jobs in forked worker processes, when that is safe and pays.

Safe means: this process is not itself a worker (a pool inside a pool would oversubscribe
the cores the outer pool already uses, and a daemonic process may not have children),
``fork`` exists, and there are at least two usable cores. Pays means: another core is idle
now (on a machine whose cores are busy, workers only fight over them). Otherwise callers
run serially; the result is the same either way.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
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


def busy_elsewhere(samples: int = 5, pause: float = 0.01) -> int:
    """Runnable processes besides this one (the least seen over a few samples: a short
    burst is not load); 0 when the count cannot be read."""
    least = None
    for i in range(samples):
        if i:
            time.sleep(pause)
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                running = next((int(line.split()[1]) for line in fh
                                if line.startswith("procs_running ")), None)
        except (OSError, ValueError, IndexError):
            return 0
        if running is None:
            return 0
        least = running if least is None else min(least, running)
    return max(0, (least or 1) - 1)


def map_in_workers(fn: Callable[[T], R], jobs: Sequence[T], weights: Sequence[float],
                   max_workers: int = 0) -> list[R] | None:
    """``[fn(job) for job in jobs]`` computed by forked workers, heaviest jobs first (so the
    cores finish together); None when a pool cannot be used (the caller runs serially).
    ``fn`` must be a module-level function; jobs and results must pickle. ``max_workers``
    caps the pool (``--jobs``; 0: no cap, 1: serial)."""
    if len(jobs) < 2 or max_workers == 1 or not may_fork():
        return None
    workers = min(usable_cores() - busy_elsewhere(), len(jobs), max_workers or len(jobs))
    if workers < 2:
        return None
    import concurrent.futures as cf

    order = sorted(range(len(jobs)), key=lambda i: -weights[i])
    try:
        with cf.ProcessPoolExecutor(max_workers=workers,
                                    mp_context=mp.get_context("fork")) as pool:
            done = list(pool.map(fn, [jobs[i] for i in order], chunksize=1))
    except (OSError, cf.process.BrokenProcessPool):
        return None
    out: list[R | None] = [None] * len(jobs)
    for i, result in zip(order, done, strict=True):
        out[i] = result
    return out  # type: ignore[return-value]
