"""Which engine release(s) a launch is judged against, and how we know.

Order: ``--target-version`` > an explicit pin (``--engine vllm==X``, a pip pin) > the
image tag (config mappings first) > for floating or custom tags the newest profile
(``latest``) or nothing (``nightly``, ``:kimi-k3``). The recipe floor
(``min_vllm_version``) is an extra target used for version coherence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.engines import registry
from servelint.engines.images import ImageRef, repository_of, resolve_image
from servelint.model import LaunchSpec, ReleaseFrom, release_kind
from servelint.profiles import Profile, store
from servelint.releases import release_range
from servelint.util.lru import Lru


def official_repositories(engine: str) -> tuple[str, ...]:
    """Repositories whose ``latest`` tag is the newest release of the engine."""
    found = registry.find(engine)
    return found.images.official if found else ()


def is_engines_own_image(engine: str, image: str) -> bool:
    """The image comes from one of the engine's own repositories (its tags name releases)."""
    return repository_of(image) in official_repositories(engine)


@dataclass(slots=True, eq=False)
class Target:
    """One release a launch is judged against, and how it was chosen (identity equality)."""

    profile: Profile
    role: str  # primary | floor
    how: str  # human text: "image tag v0.27.1", "latest → newest profile 0.33.0", ...
    floating: bool = False  # the release is a guess: findings are capped at warning
    # a profiled neighbour of an unprofiled release: "below" (an older profile) | "above"
    neighbour: str = ""
    bumped: bool = False  # judged as if the launch's image were bumped to this release
    # the release a build that is not the engine's own image names by its tag (a guess
    # that keeps its warnings: engines.images._mark_guess)
    tagged: bool = False


@dataclass(slots=True, eq=False, repr=False)
class Resolution:
    """The releases a launch is judged against, with notes on what cannot be checked."""

    targets: list[Target]
    # info notes: (message, span-ish source) for "cannot check" situations
    notes: list[str]
    # the launch's image reference, parsed once here for everyone judging this resolution
    image: ImageRef | None = None
    image_release: str | None = None  # release the image tag names, if any
    floor_release: str | None = None
    unknown_image: bool = False  # a tag that names no release (nightly, custom)
    capped: bool = False  # the release is a guess: errors are reported as warnings
    # the notes that say the release is guessed or unknown (a release range replaces them)
    guess_notes: list[str] = field(default_factory=list)
    # this resolution judged on each release range asked (``ranges.release_range``): kept
    # with it, so a memoised resolution is judged on its range once
    on_range: dict[Any, Resolution] = field(default_factory=dict)

    def note_guess(self, note: str) -> None:
        self.notes.append(note)
        self.guess_notes.append(note)


def release_version(text: str | None) -> Version | None:
    """``0.27.1`` / ``v0.27.1`` as a Version; None for text that is not one (``nightly``).
    A release with a profile is looked up in the profile listing (parsed with it)."""
    if not text:
        return None
    plain = text.strip().lstrip("v")
    listed = profiles.listed_version(plain)
    if listed is not None:
        return listed
    try:
        return Version(plain)
    except InvalidVersion:
        return None


def profile_for(engine: str, release: str) -> tuple[Profile | None, str]:
    """The profile for ``release`` or a reason why there is none."""
    prof = profiles.load(engine, release)
    if prof is not None:
        return prof, ""
    have = profiles.available(engine)
    if not have:
        return None, f"servelint has no {engine} profiles"
    v = release_version(release)
    if v is None:
        return None, f"{release!r} is not a release number"
    if v > Version(have[-1]):
        return None, f"{engine} {release} is newer than servelint's newest profile ({have[-1]})"
    if v < Version(have[0]):
        return None, f"{engine} {release} is older than servelint's oldest profile ({have[0]})"
    return None, f"{engine} {release} is not a release servelint has a profile for"


_RESOLVED = Lru(4096)  # resolutions by the launch facts they depend on


def resolve(
    spec: LaunchSpec,
    *,
    target_version: str | None = None,
    image_map: Callable[[str], tuple[str, str] | None] | None = None,
) -> Resolution:
    """The release(s) to judge ``spec`` against (memoised: it depends only on these facts)."""
    found = registry.find(spec.engine)
    if found is not None and not found.judges(spec.entrypoint):
        return Resolution(
            [],
            [
                f"{spec.entrypoint}: servelint does not model this command's "
                "arguments yet: not checked"
            ],
            _image_of(spec),
        )
    if image_map is not None:  # config mappings: not memoised (configs differ between runs)
        return _resolve(spec, target_version=target_version, image_map=image_map)
    # the user's profile store is read only without a target version (``_resolve_primary``):
    # a works-on verdict (one per release asked) stats nothing
    stored = bool(spec.image) and not target_version
    key = (
        spec.engine, spec.image, spec.release, spec.floor, release_kind(spec), target_version,
        store.state() if stored else None,
    )
    return _RESOLVED.get_or(key, lambda: _resolve(spec, target_version=target_version))


def _resolve(
    spec: LaunchSpec,
    *,
    target_version: str | None = None,
    image_map: Callable[[str], tuple[str, str] | None] | None = None,
) -> Resolution:
    if not profiles.available(spec.engine):
        return Resolution(
            [], [f"servelint has no profiles for engine {spec.engine!r}: cannot check"],
            _image_of(spec),
        )
    res = Resolution([], [], _image_of(spec))
    if target_version:
        _resolve_target_version(spec, target_version, res)
        return res
    _resolve_primary(spec, image_map, res)
    _add_floor_target(spec, res)
    res.capped = res.capped or res.unknown_image
    if res.unknown_image and not any(t.role == "primary" for t in res.targets):
        _judge_unknown_image(spec, res)
    return res


def _resolve_target_version(spec: LaunchSpec, target_version: str, res: Resolution) -> None:
    """`--target-version`: judge the launch at the release it would be bumped to."""
    engine = spec.engine
    # an image whose project says which releases it can hold (engines.image_table) is judged
    # at each of them like the engine's own
    if spec.image and not is_engines_own_image(engine, spec.image) \
            and not (res.image and res.image.basis):
        res.notes.append(
            f"{spec.image} is not an official {engine} image: what a bump to "
            f"{target_version} would do to it cannot be checked"
        )
        return
    prof, why = profile_for(engine, target_version)
    if prof is None:
        res.notes.append(why)
        return
    # a command that pins no image runs wherever the reader puts it (plugins, other
    # platforms): its upgrade verdicts are capped at warning
    guessed = release_kind(spec) in (ReleaseFrom.FLOOR, ReleaseFrom.RECIPE_IMAGE)
    pinned = not guessed and bool(spec.image or spec.release)
    res.targets.append(
        Target(
            prof, "primary", f"--target-version {target_version}", floating=not pinned,
            bumped=True,
        )
    )
    res.capped = not pinned


def _resolve_primary(
    spec: LaunchSpec,
    image_map: Callable[[str], tuple[str, str] | None] | None,
    res: Resolution,
) -> None:
    """The primary target: the pinned release, else the mapped or parsed image."""
    if spec.release:
        _resolve_release(spec, res)
    elif spec.image:
        mapped = image_map(spec.image) if image_map else None
        if mapped:
            _resolve_mapped_image(spec, mapped, res)
        elif not _resolve_stored(spec, spec.image, res):
            _resolve_image(spec, res)
    else:
        res.note_guess("no image or release pinned: the engine release cannot be checked")


def _resolve_release(spec: LaunchSpec, res: Resolution) -> None:
    release = spec.release or ""
    prof, why = profile_for(spec.engine, release)
    if prof is None:
        res.notes.append(f"cannot check: {why}")
    elif release_kind(spec) == ReleaseFrom.FLOOR:
        # a guess: the document pins nothing, its recipe's floor is used
        res.targets.append(
            Target(prof, "primary", f"no pin; judged at the floor {release}", floating=True)
        )
        res.capped = True
        res.note_guess(
            f"the command pins no image or release: judged at the recipe's floor {release}"
        )
    else:
        res.targets.append(Target(prof, "primary", f"pinned release {release}"))


def _resolve_mapped_image(spec: LaunchSpec, mapped: tuple[str, str], res: Resolution) -> None:
    """An image the config's `[tool.servelint.images]` maps to an engine release."""
    m_engine, m_release = mapped
    if m_engine == "image":  # mapped to an image with a stored profile
        if not _resolve_stored(spec, m_release, res, via=f" (mapped from {spec.image} in config)"):
            res.notes.append(
                f"cannot check image {spec.image}: config maps it to {m_release}, which has no "
                "stored profile (servelint profile list)"
            )
        return
    prof, why = profile_for(m_engine, m_release)
    if prof:
        res.targets.append(Target(prof, "primary", f"{spec.image} mapped to {m_release} in config"))
    else:
        res.notes.append(f"cannot check image {spec.image}: {why}")


def _resolve_stored(spec: LaunchSpec, ref: str, res: Resolution, via: str = "") -> bool:
    """The profile built from the image itself (``servelint profile build … --as REF``),
    when the user's store has one for ``ref``; False to resolve the image otherwise."""
    entry = store.match(ref)
    if entry is None:
        return False
    if entry.engine != spec.engine:
        res.notes.append(
            f"image {ref} has a stored {entry.engine} profile but the launch starts "
            f"{spec.engine}: cannot check the release"
        )
        return True
    if not entry.fresh():
        res.notes.append(
            f"the stored profile for {entry.ref} was built by another servelint builder and "
            f"is not used: rebuild it with servelint profile build {entry.engine} "
            f"--{_SOURCE_FLAG.get(entry.source.get('kind', ''), 'root')} "
            f"{entry.source.get('path', '…')} --as {entry.ref}"
        )
        return False
    prof = store.load(entry)
    if prof is None:
        res.notes.append(f"the stored profile for {entry.ref} cannot be read: not used")
        return False
    res.image_release = prof.version
    res.targets.append(
        Target(prof, "primary", f"image {ref}{via}: stored profile of {prof.label}, "
               f"{entry.provenance()}")
    )
    return True


_SOURCE_FLAG = {"root": "root", "image-archive": "image-archive", "image": "image"}


def _add_floor_target(spec: LaunchSpec, res: Resolution) -> None:
    """A second target at the recipe's floor release when it differs from the primary."""
    floor_v = release_version(spec.floor)
    if floor_v is None or floor_v < Version(profiles.available(spec.engine)[0]):
        return
    floor_release = profiles.best_at_or_below(spec.engine, str(floor_v))
    res.floor_release = floor_release
    primary = res.targets[0].profile.version if res.targets else None
    if floor_release and floor_release != primary:
        prof = profiles.load(spec.engine, floor_release)
        assert prof is not None
        res.targets.append(Target(prof, "floor", f"min_vllm_version {spec.floor}", floating=True))


def _judge_unknown_image(spec: LaunchSpec, res: Resolution) -> None:
    """A nightly / custom tag: judge against the floor (else the newest), capped at warning."""
    floor = next((t for t in res.targets if t.role == "floor"), None)
    if floor is not None:
        floor.role = "primary"
        floor.how = f"{spec.image} has no release; judged at its floor {floor.profile.version}"
        return
    if res.floor_release and not res.targets:
        version = res.floor_release
        how = f"{spec.image} has no release; judged at its floor {version}"
    else:
        version = profiles.newest(spec.engine)
        how = f"{spec.image} has no release; judged as the newest profile {version}"
    prof = profiles.load(spec.engine, version) if version else None
    if prof is not None:
        res.targets.append(Target(prof, "primary", how, floating=True))


def _judge_by_neighbours(spec: LaunchSpec, ref, res: Resolution, release: str) -> bool:
    """The release-range rule (servelint.releases.release_range): an unprofiled release of a sparsely
    profiled engine is judged by its nearest profiled neighbours, capped at warning."""
    sides = release_range.neighbours(spec.engine, release)
    how = release_range.how(ref.tag, sides, ref.basis)
    for version, side in sides:
        prof = profiles.load(spec.engine, version)
        assert prof is not None
        res.targets.append(Target(prof, "primary", how, floating=True, neighbour=side))
    if sides:
        res.capped = True
        res.notes.append(how)
    if sides and all(release_range.judges_newer(side) for _v, side in sides):
        res.notes.append(release_range.newer_note(spec.engine, release, sides))
    return bool(sides)


def _image_of(spec: LaunchSpec) -> ImageRef | None:
    return resolve_image(spec.image) if spec.image else None


def _resolve_image(spec: LaunchSpec, res: Resolution) -> None:
    ref = res.image
    assert ref is not None  # (asked only for a launch with an image)
    # an image of no engine servelint knows (``myorg/inference:1.0``) holds the engine its
    # command starts: a build of it that names no release, as ``myorg/vllm-prod:1.0`` is
    if ref.engine not in ("unknown", spec.engine) and spec.engine != "unknown":
        res.notes.append(
            f"image {spec.image} is a {ref.engine} image but the launch starts "
            f"{spec.engine}: cannot check the release"
        )
        return
    release = ref.release or ref.guess
    if release:
        res.image_release = ref.release
        prof, why = profile_for(spec.engine, release)
        how = ref.basis or f"image tag {ref.tag}"  # (the basis names the tag)
        if prof:
            how += f": judged at {release}" if ref.guess or ref.fork else ""
            # a fork's or another repository's build of the release may hold more or other
            # than the release: a guess, each finding at most a warning naming it
            res.targets.append(
                Target(prof, "primary", how, floating=ref.fork, tagged=ref.fork)
            )
            if ref.fork:
                res.capped = True
                if not ref.after:  # (a CI build's range says it: releases.ranges)
                    res.notes.append(f"{how}; findings capped at warning")
        elif not _judge_by_neighbours(spec, ref, res, release):
            res.notes.append(f"cannot check image {spec.image}: {why}")
        return
    if ref.ranged:  # what it holds is a range of releases (servelint.releases.ranges judges it)
        res.unknown_image = True
        res.note_guess(f"image {spec.image}: {ref.basis}")
        return
    newest = profiles.newest(spec.engine)
    official = ref.repository in official_repositories(spec.engine)
    if ref.tag in {"latest", None, ""} and official and not ref.custom and newest:
        prof = profiles.load(spec.engine, newest)
        assert prof is not None
        res.targets.append(
            Target(
                prof,
                "primary",
                f"{spec.image} taken as the newest release servelint knows ({newest})",
                floating=True,
            )
        )
        res.note_guess(
            f"image {spec.image} is a floating tag: judged as {spec.engine} {newest}, "
            "the newest release servelint has a profile for"
        )
        return
    res.unknown_image = True
    what = (f"is no {spec.engine} image servelint knows: the release it holds cannot be "
            "checked exactly" if ref.engine == "unknown"
            else f"does not name a release ({ref.tag}): cannot check it exactly")
    res.note_guess(f"image {spec.image} {what}; map it in [tool.servelint.images] to check")
