"""The floor a source claims (a recipe's ``min_vllm_version``) against the releases: a
``version-coherence`` warning when the launch fails on the first profiled release at or
above the floor, naming the first release it can work on (``floor_below``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelint import profiles
from servelint.engines.images import ImageRef
from servelint.model import Finding, LaunchSpec
from servelint.releases import works_on as works_on_mod
from servelint.releases.ranges import releases_from
from servelint.releases.resolve import Resolution, is_engines_own_image, release_version
from servelint.rules import backend_hardware, package_missing
from servelint.rules import version_coherence as rule
from servelint.util import hardware

# ``judge.first_error``: the first error of a launch judged on a release, from the named rules
FirstError = Callable[[LaunchSpec, str, frozenset[str]], Finding | None]


def _floor_failure(spec: LaunchSpec, image: ImageRef | None, release: str,
                   first_error: FirstError) -> tuple[Any, str] | None:
    """(span, why) the launch fails on ``release``: what the history index proves (a flag
    the release lacks), else an error of the rules only a check on that release can give (a
    package the release's image lacks, a backend its hardware limits reject)."""
    why = works_on_mod.certain_failure(spec, release)
    if why is not None:
        return why
    # the full check runs only when the launch can meet a gate or a backend limit there
    gpu = hardware.lookup(spec.gpu)
    texts = tuple(None if t.symbolic else t.text for t in spec.argv)  # (symbolic: no value)
    if texts and texts[0] is not None and not texts[0].startswith("--"):
        texts = ("", *texts[1:])  # the model: neither an option nor a value there
    only = _rules_to_run(
        spec.engine,
        release,
        texts,
        tuple((e.name, None if e.symbolic else e.value) for e in spec.env),
        gpu is not None and gpu.compute_capability is not None,
        _floor_image_known(spec, image),
    )
    if not only:
        return None
    err = first_error(spec, release, only)
    return (err.span, err.message) if err is not None else None


def _rules_to_run(
    engine: str,
    release: str,
    texts: tuple[str | None, ...],
    env: tuple[tuple[str, str | None], ...],
    hardware_known: bool,
    image_known: bool,
) -> frozenset[str]:
    """The rules whose errors only a check on ``release`` finds that could fire for this
    argv and env."""
    prof = profiles.load(engine, release)
    if prof is None:
        return frozenset()
    only = set()
    if hardware_known and backend_hardware.may_apply(prof, list(texts)):
        only.add(backend_hardware.NAME)  # (limits are judged only on known hardware)
    if image_known and package_missing.may_trigger(prof, dict(env), list(texts)):
        only.add(package_missing.NAME)
    return frozenset(only)


def _floor_image_known(spec: LaunchSpec, image: ImageRef | None) -> bool:
    """Whether the floor release's packages are what the launch gets there: a pip install of
    the engine (no image) or the engine's own image under a moving tag; a custom tag
    (``:hy3``) may hold anything."""
    if not spec.image:
        return True
    return is_engines_own_image(spec.engine, spec.image) and not (image and image.custom)


def floor_below(spec: LaunchSpec, res: Resolution, first_error: FirstError) -> Finding | None:
    """A ``version-coherence`` warning when the launch fails on the release at its floor (a
    literal flag that release lacks, a value it rejects, a package its image lacks, a backend
    its limits reject), naming the first release it does not fail on that way.
    ``first_error``: the judge's (this module judges no launch itself)."""
    floor, have = release_version(spec.floor), profiles.available(spec.engine)
    if floor is None or not have or floor < release_version(have[0]):
        return None  # (below the oldest profile: what the floor's release does is unknown)
    above = releases_from(spec.engine, str(floor))
    if not above or any(t.profile.version == above[0] for t in res.targets if t.role == "primary"):
        return None  # judged at the floor: its own findings say it
    why = _floor_failure(spec, res.image, above[0], first_error)
    if why is None:
        return None
    first = next((r for r in above[1:] if _floor_failure(spec, res.image, r, first_error) is None),
                 None)
    what = spec.context.get("floor_key") or "the floor"
    later = (
        f"the first release this launch can work on ({spec.engine} {first})"
        if first
        else f"every {spec.engine} release up to {have[-1]}"
    )
    # the message names the releases only, so renderings with the same range merge
    return Finding(
        rule=rule.NAME,
        code=rule.CODE,
        severity=rule.SEVERITY,
        span=spec.floor_span or spec.anchor,
        engine=spec.engine,
        release=above[0],
        message=f"{what} {spec.floor} is below {later}: it fails on {above[0]}",
        fix=(f"raise the floor to {first} " if first else "fix the launch ")
        + f"(on {above[0]}: {why[1]})",
        renderings=[spec.rendering] if spec.rendering else [],
        related=[why[0]] if why[0] is not None else [],
    )
