"""The release an install line before the launch pins: ``pip install vllm==X`` or a
versioned wheel index URL (``…/0.20.0/cu129``); a nightly or source install pins none."""

from __future__ import annotations

import re

from servelint.engines import registry
from servelint.model import LaunchSpec, PackageInstall, ReleaseFrom

# a release in a wheel index URL: ``…/rocm/0.14.1/rocm700``, ``…/0.20.0/cu129``
_INDEX_RELEASE = re.compile(r"/v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)(?:/|$)")
_INDEX_OPTIONS = (
    "--extra-index-url",
    "--index-url",
    "-i",
    "--index",
    "--default-index",
    "-f",
    "--find-links",
)


def engine_installs(spec: LaunchSpec) -> list[PackageInstall]:
    """The launch's installs of its own engine's distribution (``pip install vllm``,
    ``pip install tensorrt-llm``, ``-e .`` in a checkout)."""
    engine = registry.find(spec.engine)
    package = (engine.package if engine is not None else None) or spec.engine
    return [i for i in spec.installs if i.name and i.name.lower() == package]


def index_release(command: str) -> str | None:
    words = command.split()
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in _INDEX_OPTIONS:
            url = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            m = _INDEX_RELEASE.search(url)
            if m:
                return m.group(1)
    return None


def is_nightly(command: str) -> bool:
    return "/nightly" in command or " --pre" in f" {command}"


def pin_from_installs(spec: LaunchSpec) -> None:
    """``pip install vllm==X`` or a versioned wheel index URL before the launch pins it."""
    if spec.release is not None or spec.image is not None:
        return
    own = engine_installs(spec)
    if len({(i.requirement, index_release(i.command)) for i in own}) > 1:
        return  # installs for different platforms (CUDA, ROCm): alternatives, not one pin
    for inst in own:
        if inst.symbolic:
            continue
        if (
            inst.specifier.startswith("==")
            and "," not in inst.specifier
            and "*" not in inst.specifier
        ):
            spec.release = inst.specifier[2:].strip().split("+", 1)[0]
        elif not inst.specifier:
            spec.release = index_release(inst.command)
        if spec.release:
            spec.release_span = inst.span
            spec.context.setdefault("release_from", f"`{inst.command}`")
            spec.context.setdefault("release_kind", ReleaseFrom.INSTALL.value)
            return
