"""The one entry of release resolution: a launch's releases, computed once and handed to the
judge (``pipeline/judge.check_spec``), which asks nothing else of this package to judge the
launch on them.

``releases_of(spec, options)`` applies the run's options (``--image``, ``--engine``,
``--gpu``), the release an install line pins (``install_pins``), resolves the targets
(``resolve``: each primary release with how it is known) and the range of releases the launch
can meet (``ranges``: None when ``--target-version`` bumps the launch's own engine, which is
then judged on that release alone). ``resolution(spec, options, bump)`` is the same without
the range, for re-judging a launch as if bumped to another release (works-on, a floor)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from servelint.model import LaunchSpec
from servelint.releases import ranges
from servelint.releases.install_pins import pin_from_installs
from servelint.releases.resolve import Resolution, resolve


@dataclass(slots=True)
class Releases:
    """What the judge needs of a launch's releases."""

    resolution: Resolution  # the targets judged, each with how it is known
    range: ranges.ReleaseRange | None  # the releases the launch can meet (None: bumped)


def releases_of(spec: LaunchSpec, options: Any) -> Releases:
    """The releases ``spec`` is judged on, under the run's ``options`` (``pipeline.options``)."""
    res = resolution(spec, options)
    target = options.target_version
    # --target-version bumps its own engine's launches; the others keep their range
    if target and target.partition("==")[0] == spec.engine:
        return Releases(res, None)
    rng, res = ranges.release_range(spec, res)
    return Releases(res, rng)


def resolution(spec: LaunchSpec, options: Any, bump: str | None = None) -> Resolution:
    """The releases to judge ``spec`` against: ``bump`` (a release of its engine to judge it
    as if bumped to), else ``--target-version`` when it names the launch's engine, else
    what the launch says."""
    _apply_options(spec, options)
    # a config that maps images to releases (else None: resolutions are then memoised)
    image_map = options.config.image_release if getattr(options.config, "images", None) else None
    if bump is None and options.target_version:
        engine, _, version = options.target_version.partition("==")
        bump = version if engine == spec.engine else None
    return resolve(spec, target_version=bump, image_map=image_map)


def _apply_options(spec: LaunchSpec, options: Any) -> None:
    if spec.image is None and options.image:
        spec.image = options.image
    if spec.release is None and options.engine:
        engine, _, version = options.engine.partition("==")
        if engine == spec.engine and version:
            spec.release = version
    if spec.gpu is None and options.gpu:
        spec.gpu = options.gpu
    pin_from_installs(spec)  # `pip install vllm==X`, a versioned wheel index
