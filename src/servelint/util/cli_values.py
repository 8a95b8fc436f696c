"""Checks for the values a user types (command line and config file), one reason each.

Every function returns the value in its canonical spelling or raises ``ValueError`` whose
text is the one-line reason to print. A value is never snapped to a near one: a near
spelling is only offered as "did you mean".
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.engines import registry
from servelint.engines.images import resolve_image
from servelint.util.hardware import GPUS

NEAREST_SHOWN = 3  # releases named when a requested one has no profile


def did_you_mean(value: str, choices: Iterable[str], cutoff: float = 0.7) -> str:
    """``'; did you mean "x"?'`` when a choice is close to ``value``, else ``""``."""
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=cutoff)
    return f'; did you mean "{close[0]}"?' if close else ""


def engine_name(text: str) -> str:
    """An engine servelint has profiles for (``vllm``, ``sglang``, ...)."""
    name = text.strip().lower()
    known = profiles.engines()
    if name not in known:
        hint = did_you_mean(name, known) or f"; known engines: {', '.join(known)}"
        raise ValueError(f'unknown engine "{text}"{hint}')
    return name


def nearest_releases(engine: str, version: str) -> list[str]:
    """The releases with a profile closest to ``version`` (by release tuple), nearest first."""
    have = profiles.available(engine)
    try:
        wanted = Version(version).release
    except InvalidVersion:
        return list(have[-NEAREST_SHOWN:])
    if Version(version) > Version(have[-1]):  # after the newest: the newest, newest first
        return list(reversed(have[-NEAREST_SHOWN:]))
    if Version(version) < Version(have[0]):
        return list(have[:NEAREST_SHOWN])

    def distance(release: str) -> tuple[int, ...]:
        parts = Version(release).release
        width = max(len(parts), len(wanted))
        pad = lambda t: t + (0,) * (width - len(t))  # noqa: E731
        return tuple(abs(a - b) for a, b in zip(pad(parts), pad(wanted), strict=True))

    return sorted(have, key=distance)[:NEAREST_SHOWN]


def release(text: str, *, bare_engine: str | None = None) -> tuple[str, str]:
    """``"vllm==0.33.0"`` -> ("vllm", "0.33.0"), for a release servelint has a profile of.

    ``0.33`` is refused although it compares equal to ``0.33.0``: engines publish the
    three-part name, and a release is judged by its own profile, never a near one.
    ``bare_engine`` allows a bare version for that engine.
    """
    engine, sep, version = text.partition("==")
    if not sep:
        if bare_engine is None or "=" in text:
            raise ValueError(f'expected ENGINE==VERSION (e.g. "vllm==0.33.0"), got "{text}"')
        engine, version = bare_engine, text
    engine = engine_name(engine)
    version = version.strip()
    try:
        Version(version)
    except InvalidVersion:
        raise ValueError(f'invalid version "{version}" in "{text}"') from None
    if version not in profiles.available(engine):
        near = ", ".join(nearest_releases(engine, version))
        have = profiles.available(engine)
        raise ValueError(
            f"no profile for {engine} {version} (servelint knows {engine} "
            f"{have[0]} to {have[-1]}; nearest: {near})" + ("" if sep else _other_engines(engine, version))
        )
    return engine, version


def _other_engines(taken_for: str, version: str) -> str:
    """For a bare version that is no release of the engine it was taken for: the engines
    that have it (``0.5.6`` given for an SGLang launcher is SGLang's, not vLLM's)."""
    names = [f'"{e.name}=={version}"' for e in registry.engines()
             if e.name != taken_for and version in profiles.available(e.name)]
    return (f"; a bare version is {taken_for}'s: did you mean {' or '.join(names)}?"
            if names else "")


def gpu(text: str) -> str:
    """A GPU id servelint knows, spelled exactly (after case and ``-``/``_``)."""
    key = text.strip().lower().replace("-", "_")
    if key not in GPUS:
        hint = did_you_mean(key, sorted(GPUS)) or f"; known: {', '.join(sorted(GPUS))}"
        raise ValueError(f'unknown gpu "{text}"{hint}')
    return key


def jobs(value: int) -> int:
    """A worker count: 0 (one per core) or more."""
    if value < 0:
        raise ValueError(f"must be 0 (one per core) or a positive count, got {value}")
    return value


def image(text: str) -> str | None:
    """An image reference for ``--image``: refused when its repository is a near miss of a
    known engine repository (``vllm/vllm-opnai``); a note (returned) when it names no
    engine servelint knows (``nginx:latest``) or no release."""
    ref = resolve_image(text)
    known = registry.repositories()
    if ref.repository not in known:
        last = ref.repository.rsplit("/", 1)[-1]
        lasts = {repo.rsplit("/", 1)[-1] for repo in known}
        hint = did_you_mean(ref.repository, sorted(known), cutoff=0.85)
        if last not in lasts and hint:
            raise ValueError(f'"{text}": repository "{ref.repository}" is no engine image '
                             f"servelint knows{hint}")
    if ref.engine == "unknown":
        return (f'--image "{text}" names no engine image servelint knows: launches that '
                "name no image are judged as a build of their engine of a release it does "
                "not tell (a guess: no errors)")
    if ref.release is None:
        return (f'--image "{text}": {ref.note or "its tag names no release"}; the releases '
                "are judged as for an unpinned launch")
    return None
