"""InferenceX reads in worker processes: same result as serial, never a pool inside a worker."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os

import pytest

from servelint.readers import inferencex, inferencex_parallel
from servelint.readers.inferencex_parallel import map_in_workers, may_fork

MINI = os.path.join(os.path.dirname(__file__), "cases", "inferencex", "mini")
needs_fork = pytest.mark.skipif(not may_fork(), reason="needs fork and two usable cores")


def _square(x: int) -> int:
    return x * x


def _pid(_: int) -> int:
    return os.getpid()


def _nested_may_fork(_: int) -> bool:
    return may_fork()


def _summary(res: inferencex.InferenceXResult) -> tuple:
    launches = [(s.rendering, s.anchor, [(t.text, t.symbolic, t.span) for t in s.argv],
                 [(e.name, e.value) for e in s.env], sorted(s.context.items()))
                for s in res.launches]
    problems = [(p.path, p.span, p.message, p.kind) for p in res.problems]
    stats = {k: v for k, v in res.stats.items() if k != "seconds"}
    return launches, problems, stats


@pytest.fixture
def idle(monkeypatch):
    """Pretend no other process is running (the test machine may be busy)."""
    monkeypatch.setattr(inferencex_parallel, "busy_elsewhere", lambda: 0)


@needs_fork
def test_results_come_back_in_job_order_whatever_the_weights(idle):
    assert map_in_workers(_square, [1, 2, 3, 4], [1, 9, 2, 8]) == [1, 4, 9, 16]


@needs_fork
def test_jobs_run_in_other_processes(idle):
    pids = map_in_workers(_pid, [0, 1], [1, 1])
    assert pids is not None and os.getpid() not in pids


def test_no_pool_inside_a_worker_process():
    with cf.ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as pool:
        assert pool.submit(_nested_may_fork, 0).result() is False


def test_single_job_one_core_or_a_busy_machine_runs_serially(monkeypatch):
    assert map_in_workers(_square, [3], [1]) is None
    monkeypatch.setattr(inferencex_parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(inferencex_parallel, "busy_elsewhere", lambda: 1)
    assert map_in_workers(_square, [1, 2], [1, 1]) is None
    monkeypatch.setattr(inferencex_parallel, "usable_cores", lambda: 1)
    monkeypatch.setattr(inferencex_parallel, "busy_elsewhere", lambda: 0)
    assert map_in_workers(_square, [1, 2], [1, 1]) is None


@needs_fork
def test_parallel_reads_give_the_serial_result(monkeypatch, idle):
    monkeypatch.setattr(inferencex, "may_fork", lambda: False)
    serial = inferencex.read_inferencex(MINI)
    calls = []
    real = inferencex._parallel_reads

    def spy(*args):
        found = real(*args)
        calls.append(found)
        return found

    monkeypatch.setattr(inferencex, "may_fork", lambda: True)
    monkeypatch.setattr(inferencex, "_MIN_PARALLEL_READS", 0)
    monkeypatch.setattr(inferencex, "_parallel_reads", spy)
    parallel = inferencex.read_inferencex(MINI)
    assert calls and calls[0]  # the reads really were made ahead, in workers
    assert _summary(parallel) == _summary(serial)
    assert serial.launches and serial.problems


def test_one_job_reads_serially(monkeypatch):
    """--jobs 1 starts no pool for the launcher reads."""
    from servelint.readers import inferencex_parallel as par

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(par, "usable_cores", lambda: 8)
    monkeypatch.setattr(par, "busy_elsewhere", lambda *a, **k: 0)
    import concurrent.futures as cf
    monkeypatch.setattr(cf, "ProcessPoolExecutor", no_pool)
    assert par.map_in_workers(abs, [-1, -2, -3], [1, 1, 1], max_workers=1) is None
