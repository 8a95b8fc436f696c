"""Assemble one release profile from the extractors of its engine."""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Any

from servelint import profiles
from servelint.builder import BUILDER_VERSION
from servelint.builder.wheel import WheelSource, download

# Each extractor module exposes ``extract(src, profile) -> dict`` returning top-level
# profile sections; later extractors may read what earlier ones produced.
EXTRACTORS: dict[str, list[str]] = {
    "vllm": [
        "servelint.builder.vllm_parser",    # parser (options, argv rules) + configs
        "servelint.builder.vllm_env",       # env registry
        "servelint.builder.vllm_values",    # late-checked value sets
        "servelint.builder.vllm_gates",     # optional-package gates
        "servelint.builder.vllm_image",     # image package set
        "servelint.builder.vllm_backends",  # backend hardware limits
    ],
    "sglang": [
        "servelint.builder.sglang_parser",
        "servelint.builder.sglang_env",
        "servelint.builder.sglang_facts",
    ],
}


def build_from_wheel(engine: str, wheel: Path) -> dict[str, Any]:
    src = WheelSource(wheel)
    profile: dict[str, Any] = {
        "format": 1,
        "engine": engine,
        "version": src.version,
        "wheel": {"filename": Path(wheel).name, "sha256": src.sha256},
        "builder_version": BUILDER_VERSION,
    }
    missing = []
    for name in EXTRACTORS[engine]:
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


def build(engine: str, version: str, *, wheel_dir: Path | None = None,
          out_root: Path | None = None) -> tuple[Path, float]:
    """Download (or reuse) the wheel, build, write. Returns (path, seconds spent building)."""
    wheel = download(engine, version, wheel_dir)
    start = time.perf_counter()
    data = build_from_wheel(engine, wheel)
    elapsed = time.perf_counter() - start
    return profiles.write(data, engine, version, out_root), elapsed
