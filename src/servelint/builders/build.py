"""Assemble one release profile from the extractors of its engine."""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Any

from servelint import profiles
from servelint.builders import BUILDER_VERSION
from servelint.builders.wheel import WheelSource, download
from servelint.engines import registry

# Each extractor module (``Engine.extractors``) exposes ``extract(src, profile) -> dict``
# returning top-level profile sections; later extractors may read what earlier ones produced.


def extractors(engine: str) -> tuple[str, ...]:
    found = registry.find(engine)
    if found is None or not found.extractors:
        raise LookupError(f"engine {engine!r} has no profile builder")
    return found.extractors


def build_from_wheel(engine: str, wheel: Path) -> dict[str, Any]:
    src = WheelSource(wheel)
    return build_from_source(engine, src, {"filename": Path(wheel).name, "sha256": src.sha256})


def build_from_source(engine: str, src: Any, wheel: dict[str, Any]) -> dict[str, Any]:
    """Run the engine's extractors over ``src`` (a ``WheelSource`` or anything with its
    interface, e.g. ``root.RootSource``); ``wheel`` says where the files came from."""
    profile: dict[str, Any] = {
        "format": 1,
        "engine": engine,
        "version": src.version,
        "wheel": wheel,
        "builder_version": BUILDER_VERSION,
    }
    missing = []
    for name in extractors(engine):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            missing.append(name.rsplit(".", 1)[-1])
            continue
        profile.update(module.extract(src, profile))
    if missing:
        profile["missing_extractors"] = missing
    return profile


def build(
    engine: str, version: str, *, wheel_dir: Path | None = None, out_root: Path | None = None
) -> tuple[Path, float]:
    """Download (or reuse) the wheel, build, write. Returns (path, seconds spent building)."""
    wheel = download(engine, version, wheel_dir)
    start = time.perf_counter()
    data = build_from_wheel(engine, wheel)
    elapsed = time.perf_counter() - start
    return profiles.write(data, engine, version, out_root), elapsed
