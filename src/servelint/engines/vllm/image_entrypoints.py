"""What each official vLLM image runs, per release: ``entrypoint(repository, release)``.

Read from ``image_entrypoints.json`` beside this module, which ``tools/gen_image_entrypoints.py``
writes from each release's sdist (its ``docker/Dockerfile*`` and release pipeline; see
``builder/image_entrypoint.py``). The ``vllm/vllm-openai`` images up to 0.11.0 run
``python3 -m vllm.entrypoints.openai.api_server`` (0.11.0: ``docker/Dockerfile:542``), from
0.11.1 on ``vllm serve`` (``docker/Dockerfile:500``). A release the table lacks (0.15.0 and
0.15.1 were published without an sdist) gets its neighbours' entrypoint marked not exact
when both agree, else None (unknown); so does a release newer than the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from servelint.engines.base import ImageEntrypoint


def _read_table() -> dict[str, Any]:
    """The generated table (read at import: under 1 ms)."""
    path = Path(__file__).with_name("image_entrypoints.json")  # (importlib.resources: 7 ms)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {"releases": {}}


_TABLE = _read_table()


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _reading(release: str, repository: str) -> dict[str, Any] | None:
    entry = _TABLE["releases"].get(release)
    if entry is None:
        return None
    return next(
        (f for f in entry["flavours"].values() if f.get("repository") == repository), None
    )


def _exact(release: str, reading: dict[str, Any]) -> ImageEntrypoint | None:
    if reading.get("entrypoint") is None and reading.get("inherited"):
        return None  # the base image (built elsewhere) may set one: unknown
    at = reading.get("entrypoint_at") or reading.get("cmd_at") or reading["dockerfile"]
    return ImageEntrypoint(
        tuple(reading.get("entrypoint") or ()), tuple(reading.get("cmd") or ()),
        f"vllm {release} {at}",
    )


def entrypoint(repository: str, release: str | None) -> ImageEntrypoint | None:
    """What ``repository``'s image of ``release`` runs (None: the newest release read)."""
    releases = list(_TABLE["releases"])
    if not releases:
        return None
    release = release or releases[-1]
    reading = _reading(release, repository)
    if reading is not None:
        return _exact(release, reading)
    at = _version(release)
    if at is None or release in releases:
        return None
    below = [r for r in releases if (_version(r) or at) < at]
    above = [r for r in releases if (_version(r) or at) > at]
    if not below or not above:
        return None  # outside the releases read: unknown
    sides = [(r, _reading(r, repository)) for r in (below[-1], above[0])]
    found = [_exact(r, got) if got else None for r, got in sides]
    if None in found or found[0].words != found[1].words:  # type: ignore[union-attr]
        return None
    lo, hi = found
    assert lo is not None and hi is not None
    return ImageEntrypoint(
        lo.words, lo.cmd, f"{lo.at}; {hi.at}", exact=False,
        why=(f"vllm {release}'s build files were not read (no sdist); {below[-1]} and "
             f"{above[0]} both run it"),
    )
