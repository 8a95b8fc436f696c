"""Progress on stderr (files done / total, launches judged) for runs that last, only on a
terminal. A unit read in parts (an InferenceX checkout) counts each launcher script.

Nothing is drawn during the first ``DELAY_S`` seconds, so quick runs stay silent; a
stream that is not a terminal (a pipe, a file, CI logs) never gets progress. The bar is
transient: it is erased when the run ends, leaving the report alone on the screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

DELAY_S = 1.0


class FileProgress:
    """Called with (done, total, launches) as files finish; starts a rich bar once
    ``delay`` passed."""

    def __init__(
        self, stream: TextIO, delay: float = DELAY_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.delay = delay
        self.clock = clock
        self.started = clock()
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int, launches: int = 0) -> None:
        if self._bar is None:
            if self.clock() - self.started < self.delay or done >= total:
                return
            self._start(total)
        self._bar.update(self._task, completed=done, total=total,
                         launches=f"{launches:,} launch{'es' * (launches != 1)}")

    def _start(self, total: int) -> None:
        # (a bar on a terminal only: a piped or quiet run never imports rich.progress, ~20 ms)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        console = Console(file=self.stream, force_terminal=True)
        self._bar = Progress(
            TextColumn("checking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files ·"),
            TextColumn("{task.fields[launches]}"),
            console=console,
            transient=True,
        )
        self._task = self._bar.add_task("check", total=total, launches="0 launches")
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


@contextmanager
def progress_for(
    stream: TextIO, *, enabled: bool = True, delay: float = DELAY_S
) -> Iterator[Callable[[int, int, int], None] | None]:
    """A (done, total, launches) callback drawing progress on ``stream``, or None when it would not
    be shown (disabled, or ``stream`` is not a terminal)."""
    if not enabled or not is_terminal(stream):
        yield None
        return
    bar = FileProgress(stream, delay)
    try:
        yield bar
    finally:
        bar.close()
