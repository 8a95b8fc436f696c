"""The files a read touched: readers ``note`` each file they open while a ``recording`` is on.

The pipeline records around each read; the cache keeps the files' digests with the result
and reuses it only while every one is unchanged (sourced helpers at any depth included).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

_RECORDING: list[set[str]] = []  # one set per read in progress (innermost last)


@contextmanager
def recording() -> Iterator[set[str]]:
    seen: set[str] = set()
    _RECORDING.append(seen)
    try:
        yield seen
    finally:
        _RECORDING.pop()


def note(path: str | os.PathLike[str]) -> None:
    """Record that the read in progress depends on ``path`` (absolute, symlinks kept)."""
    if _RECORDING:
        _RECORDING[-1].add(os.path.abspath(path))
