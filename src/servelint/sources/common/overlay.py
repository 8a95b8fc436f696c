"""Texts standing in for files on disk: ``--fix`` re-checks its edits before it writes.

While ``stand_in({path: text})`` is active, the readers' file reads (``read_bytes``) return
the given text for those paths (matched by absolute path) instead of the disk's. Worker
processes are forked, so they see the texts set before the pool starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_TEXTS: dict[str, bytes] = {}


@contextmanager
def stand_in(texts: dict[str, str]) -> Iterator[None]:
    saved = dict(_TEXTS)
    _TEXTS.update({os.path.abspath(p): t.encode("utf-8") for p, t in texts.items()})
    try:
        yield
    finally:
        _TEXTS.clear()
        _TEXTS.update(saved)


def active() -> bool:
    return bool(_TEXTS)


def touches(paths: list[str]) -> bool:
    """Whether any of ``paths`` (absolute) has a stand-in text."""
    return bool(_TEXTS) and any(p in _TEXTS for p in paths)


def get(path: str | os.PathLike[str]) -> bytes | None:
    """The stand-in text of ``path``, or None when the disk's holds."""
    return _TEXTS.get(os.path.abspath(path)) if _TEXTS else None


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    data = get(path)
    return data if data is not None else Path(path).read_bytes()


def read_text(path: str | os.PathLike[str]) -> str:
    """As ``open(path, encoding="utf-8").read()``: strict UTF-8, universal newlines."""
    text = read_bytes(path).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")
