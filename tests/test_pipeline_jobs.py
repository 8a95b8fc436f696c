"""The pipeline's one worker pool: an InferenceX checkout read as one job per launcher
script gives the serial reader's launches, in the same order, whatever the worker count."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from servelint.pipeline import Options, check_paths
from servelint.sources.inferencex.reader import read_inferencex

MINI = os.path.join(os.path.dirname(__file__), "cases", "inferencex", "mini")


def _summary(report) -> list[tuple]:
    return [(lr.summary["rendering"], tuple(lr.summary["argv"])) for lr in report.launches]


def test_parts_give_the_serial_readers_launches_in_order():
    report = check_paths([MINI], Options(jobs=1))
    serial = read_inferencex(MINI)
    assert [(s.rendering, tuple(t.text for t in s.argv)) for s in serial.launches] == _summary(
        report
    )
    assert len(report.units) == 1 and report.units[0].launch_count == len(serial.launches)


def test_worker_count_does_not_change_the_report(monkeypatch):
    from servelint.pipeline import run

    monkeypatch.setattr(run, "PARALLEL_MIN_TASKS", 1)  # the mini checkout has few scripts
    one = check_paths([MINI], Options(jobs=1))
    two = check_paths([MINI], Options(jobs=2))
    assert _summary(one) == _summary(two)
    assert [f.to_dict() if hasattr(f, "to_dict") else repr(f) for f in one.findings] == [
        f.to_dict() if hasattr(f, "to_dict") else repr(f) for f in two.findings
    ]


def test_output_does_not_depend_on_the_hash_seed(tmp_path):
    """No process-global state whose output follows set or dict order of hashed strings."""
    outs = []
    for seed in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=seed, SERVELINT_CACHE_DIR=str(tmp_path / seed))
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "servelint.cli",
                "check",
                MINI,
                "--format",
                "json",
                "--no-cache",
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        data = json.loads(proc.stdout)
        data.get("stats", {}).pop("seconds", None)
        outs.append(data)
    assert outs[0] == outs[1]
