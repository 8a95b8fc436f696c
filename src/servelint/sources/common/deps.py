"""The files a read touched: readers ``note`` each file they open while a ``recording`` is on.

The pipeline records around each read; the cache keeps the files' digests with the result
and reuses it only while every one is unchanged (sourced helpers at any depth included).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

_RECORDING: list[set[str]] = []  # one set per read in progress (innermost last)
# noted with a relative path: the result depends on the working directory too
WORKING_DIRECTORY = "<working directory>"


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
        if not os.path.isabs(path):
            _RECORDING[-1].add(WORKING_DIRECTORY)


def note_named_files(argv: list) -> None:
    """Note the YAML/JSON files a launch's argv names (``--config FILE``,
    ``--extra_llm_api_options=FILE``): judging may read them, and the argv memo reads
    each once per process, so they are noted for every launch that names them."""
    if not _RECORDING:
        return
    for token in argv:
        if token.symbolic:
            continue
        text = token.text.split("=", 1)[-1]
        if text.endswith((".yaml", ".yml", ".json")) and "\0" not in text:
            note(text)
