"""Progress on stderr: files done / total, on a terminal only, after a delay (issue 17)."""

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from servelint.pipeline.progress import FileProgress, progress_for

CORPUS = Path(os.environ.get("SERVELINT_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def read_all(fd: int) -> str:
    chunks = []
    for _ in range(200):  # bounded: a writer that never stops cannot hang the test
        if not select.select([fd], [], [], 0.5)[0]:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode("utf-8", "replace")


def test_progress_is_drawn_on_a_pseudo_terminal_after_the_delay():
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    try:
        clock = Clock()
        bar = FileProgress(stream, delay=1.0, clock=clock)
        bar(1, 10)  # within the first second: nothing drawn
        assert bar._bar is None
        clock.now = 1.5
        bar(3, 10, 40)
        bar(7, 10, 1234)
        bar.close()  # stops the refresh thread; what it drew is in the terminal's buffer
        shown = read_all(master)
        assert "checking" in shown and "7/10" in shown and "files" in shown
        assert "1,234 launches" in shown
    finally:
        stream.close()
        os.close(master)


def test_quick_runs_and_pipes_get_no_progress(tmp_path):
    clock = Clock()
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    try:
        bar = FileProgress(stream, delay=1.0, clock=clock)
        for done in range(1, 6):
            bar(done, 5)  # all done within the delay
        bar.close()
        assert read_all(master) == ""
    finally:
        stream.close()
        os.close(master)
    pipe = open(tmp_path / "err.txt", "w")  # noqa: SIM115
    with progress_for(pipe) as tick:
        assert tick is None  # not a terminal: silent
    pipe.close()
    with progress_for(sys.stderr, enabled=False) as tick:
        assert tick is None  # --quiet


def test_check_on_a_pipe_writes_nothing_to_stderr(tmp_path):
    (tmp_path / "run.sh").write_text("#!/bin/bash\nvllm serve m --max-model-len 8\n")
    proc = subprocess.run(
        [sys.executable, "-m", "servelint.cli", "check", "--no-cache", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == ""


def test_check_passes_done_and_total_to_the_progress_callback(tmp_path):
    from servelint.check import Options, check_paths

    for i in range(3):
        (tmp_path / f"r{i}.sh").write_text("#!/bin/bash\nvllm serve m\n")
    seen = []
    check_paths([str(tmp_path)], Options(jobs=1), on_done=lambda *a: seen.append(a))
    assert seen == [(1, 3, 1), (2, 3, 2), (3, 3, 3)]


def test_a_checkout_read_in_parts_counts_each_launcher_script():
    """Issue 32: an InferenceX checkout was one unit: progress said 0/1 until the end."""
    from servelint.check import Options, check_paths

    root = CORPUS / "inferencex"
    if not root.is_dir():
        pytest.skip("corpus not beside the checkout")
    seen = []
    check_paths([str(root)], Options(jobs=1), on_done=lambda *a: seen.append(a))
    assert len(seen) > 100 and seen[-1][0] == seen[-1][1] == len(seen)
    assert [s[2] for s in seen] == sorted(s[2] for s in seen) and seen[-1][2] > 300
