"""Release ranges: the releases a launch can meet, how that is known, and the verdict over them.

A launch that pins a release (image tag, ``pip install vllm==X``, a versioned wheel index,
``--engine``) meets that one release. One that pins nothing meets a range:

* ``floor``: a recipe (or its guide) claims ``min_vllm_version``; its pip tab and ``:latest``
  image install the newest release today: the floor up to the newest profile;
* ``latest``: ``pip install [-U] vllm``, ``uv pip install vllm``, an official ``:latest``
  image: today's newest release (every profiled release may have been the one it got);
* ``any``: the document installs nothing and names no image: any profiled release;
* ``nightly``: a nightly image whose tag spells its build date (``nightly-dev-20260527-…``),
  placed by the release dates read from each release's own sdist or wheel
  (``servelint.releases.release_facts``): judged as the newest release dated on or before the build
  (the nightly is at or after it, and before the next release), never above warning;
* ``after-newest``: a nightly built after the newest release, an undated nightly image or
  wheel index, or the engine built from source: newer than every profile, judged as the
  newest release, and never above warning;
* ``local``: the engine run from a project's own environment by a relative path
  (``.venv/bin/vllm``, ``"$REPO/.venv/bin/vllm"``) that nothing in the document installs:
  any build (a fork, a checkout), judged as the newest release, never above warning.
* ``image``: an image whose tag names no engine release (a Dynamo runtime the release notes
  read lack, llm-d, ``rocm/vllm-dev``): the releases its project's files say it can hold
  (``engines.image_table``), every profile when they say nothing; a custom tag of the
  engine's own repository naming no release (any release from the floor), an undated ``MMDD``
  nightly (that day's nightly in each year the releases span), a CI or development build of
  commits after the release its tag spells (that release). Custom and development builds
  (``fork``) are never an error, and an env name no release up to the judged one reads is
  info there (the build may read it).

The verdict over a range, once an error is found on its newest release, is
``servelint.releases.range_verdict``.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from servelint import profiles
from servelint.engines.images import ImageRef
from servelint.model import (
    LaunchSpec,
    ReleaseFrom,
    release_kind,
)
from servelint.releases import release_facts
from servelint.releases.install_pins import engine_installs, is_nightly
from servelint.releases.resolve import (
    Resolution,
    Target,
    is_engines_own_image,
    official_repositories,
    release_version,
)


@dataclass(frozen=True, slots=True)
class ReleaseRange:
    """The releases a launch can meet, and how that is known."""

    engine: str
    kind: str  # pinned | floor | latest | any | nightly | after-newest | local | image
    releases: tuple[str, ...]  # profiled releases of the range, oldest first
    source: str  # what says so: "`uv pip install -U vllm` (line 12)", "min_vllm_version 0.10.0"
    placement: release_facts.Placement | None = None  # a dated nightly among the releases
    # what gives today's newest release to everyone who follows the launch today, with its
    # verb (an official `:latest` image "is", an unpinned engine install "installs"); "" when
    # nothing does
    newest_by: str = ""
    basis: str = ""  # kind "image": what the image's project says it holds
    fork: bool = False  # kind "image": a fork's or an unreleased commit's build (never an error)

    @property
    def today(self) -> str | None:
        """The release an unpinned install gets today (the newest profile of the range)."""
        return self.releases[-1] if self.releases else None

    def describe(self) -> str:
        lo, hi = (self.releases[0], self.releases[-1]) if self.releases else ("", "")
        if self.kind == "nightly" and self.placement is not None:
            return f"{self.source} is {self.placement_text()}; judged as {hi}"
        if self.kind == "local":
            return (
                f"{self.source} runs whatever build its environment holds (a fork or a source "
                f"checkout may be newer than any release); judged as {hi}"
            )
        if self.kind == "after-newest":
            if self.placement is not None:
                return f"{self.source} is {self.placement_text()}; judged as {hi}"
            return (
                f"{self.source} is newer than every {self.engine} release servelint knows "
                f"(judged as {hi})"
            )
        span = f"{self.engine} {lo}–{hi}" if lo != hi else f"{self.engine} {hi}"
        if self.kind == "image":
            return f"{self.source}: {self.basis}; judged across {span}"
        if self.kind == "floor":
            return f"no release pinned: judged across {span} ({self.source} up to the newest)"
        if self.kind == "latest":
            return (
                f"no release pinned: {self.source} installs the newest release today "
                f"({hi}); judged across {span}"
            )
        return f"no image or release pinned: judged across {span} ({self.source})"

    def placement_text(self) -> str:
        """ "a build of 2026-05-27: at or after vllm 0.22.0 (2026-05-15), before 0.22.1
        (2026-06-02), by the release files' dates"."""
        p = self.placement
        assert p is not None
        where = f"at or after {self.engine} {p.at} (released {p.at_date})"
        if p.next:
            where += f", before {p.next} ({p.next_date})"
        else:
            where += ", the newest release servelint knows"
        return f"a build of {p.built}: {where}, by the dates of the releases' own files"


# ------------------------------------------------------------------ the range


def release_range(spec: LaunchSpec, res: Resolution) -> tuple[ReleaseRange | None, Resolution]:
    """The range ``spec`` can meet, and the resolution to judge it with (a copy with the
    range's newest release as the judged target when the resolution had none).

    ``None`` for a pinned launch, an image that is not the engine's own (what it contains is
    unknown) or an engine without profiles: the resolution is then used as it is."""
    have = profiles.available(spec.engine)
    primary = [t for t in res.targets if t.role == "primary"]
    if not have or any(not t.floating for t in primary):
        return None, res
    if release_kind(spec) == ReleaseFrom.FLOOR:
        rng = _floor_range(spec, have, f"min_vllm_version {spec.floor}")
    elif spec.image:
        ref = res.image
        assert ref is not None  # (parsed by the resolution of a launch with an image)
        if ref.ranged and ref.engine == spec.engine:
            rng = _table_range(spec, ref, have)
        elif ref.guess and ref.after and ref.guess in have and ref.engine == spec.engine:
            rng = _after_range(spec, ref)
        elif not is_engines_own_image(spec.engine, spec.image):
            return None, res
        else:
            rng = _image_range(spec, ref, have)
    else:
        rng = _install_range(spec, have)
    if rng is None:
        return None, res
    judged = res.on_range.get(rng)
    if judged is None:
        judged = res.on_range[rng] = _judged_on(spec, res, rng)
    return rng, judged


def releases_from(engine: str, floor: str) -> tuple[str, ...]:
    """The profiled releases at or above ``floor``, oldest first."""
    at = release_version(floor)
    if at is None:
        return ()
    return profiles.available(engine)[bisect.bisect_left(profiles.versions(engine), at):]


def _floor_range(spec: LaunchSpec, have: tuple[str, ...], source: str) -> ReleaseRange | None:
    floor = release_version(spec.floor)
    if floor is None:
        return None
    releases = releases_from(spec.engine, str(floor))
    if not releases:
        return ReleaseRange(spec.engine, "after-newest", (have[-1],), source)
    return ReleaseRange(spec.engine, "floor", releases, source)


def _image_range(spec: LaunchSpec, ref: ImageRef, have: tuple[str, ...]) -> ReleaseRange | None:
    if ref.repository not in official_repositories(spec.engine):
        return None
    if ref.release or ref.guess:
        return None  # a release the profiles lack, or a custom build's: the resolution says
    if ref.tag.lower() in {"latest", ""} and not ref.custom:
        by = f"`{spec.image}` is"
        floor_key = spec.context.get("floor_key")  # a floor the document states as a key
        if spec.floor and floor_key:
            rng = _floor_range(spec, have, f"{floor_key} {spec.floor}")
            return replace(rng, newest_by=by) if rng is not None else None
        return ReleaseRange(spec.engine, "latest", have, f"image {spec.image}", newest_by=by)
    if ref.custom and not _NIGHTLY_TAG.match(ref.tag):
        # a custom tag naming no release (``vllm/vllm-openai:minimax27``): any release the
        # document's floor allows, never an exact-release verdict
        releases = releases_from(spec.engine, spec.floor) if spec.floor else have
        basis = (f"tag {ref.tag!r} names no {spec.engine} release (a custom build): it can "
                 "hold any release")
        return ReleaseRange(spec.engine, "image", releases or have, f"image {spec.image}",
                            basis=basis, fork=True)
    return _nightly_range(spec.engine, ref.tag, have, f"image {spec.image}")


# a nightly or a commit's build: newer than the release before it (``nightly-<sha>``,
# ``dev-nightly-0820``, a bare commit hash)
_NIGHTLY_TAG = re.compile(r"^(nightly|dev)|^[0-9a-f]{7,40}$", re.IGNORECASE)


def _after_range(spec: LaunchSpec, ref) -> ReleaseRange:  # noqa: ANN001
    """A CI or development build of commits after the release its tag spells
    (``vllm-x86_64-cu13-0.25.1-7a33ba9``, ``sglang-0.5.9-rocm720-…-0227-2``): judged there,
    never an error, and names a later release adds may be read (``mark_guess``)."""
    basis = (f"a build of commits after {spec.engine} {ref.guess}, the release its tag "
             "spells (a guess: never an error)")
    return ReleaseRange(spec.engine, "image", (ref.guess,), f"image {spec.image}",
                        basis=basis, fork=True)


def _table_range(spec: LaunchSpec, ref, have: tuple[str, ...]) -> ReleaseRange | None:  # noqa: ANN001
    """The profiled releases between the lowest and highest an image can hold (its project's
    files, ``engines.image_table``); None when they are all older than every profile."""
    lo, hi = release_version(ref.lo), release_version(ref.hi)
    releases = tuple(
        r for r in have
        if (lo is None or release_version(r) >= lo) and (hi is None or release_version(r) <= hi)
    )
    source = f"image {spec.image}"
    if releases:
        return ReleaseRange(spec.engine, "image", releases, source, basis=ref.basis,
                            fork=ref.fork)
    if lo is not None and lo > release_version(have[-1]):
        return ReleaseRange(spec.engine, "after-newest", (have[-1],), source)
    return None


def _nightly_range(engine: str, tag: str, have: tuple[str, ...], source: str) -> ReleaseRange:
    """A nightly placed by the date in its tag (the release dated on or before it), else
    after the newest release."""
    built = release_facts.tag_date(tag) if tag.lower().startswith("nightly") else None
    month_day = release_facts.tag_month_day(tag) if built is None else None
    if month_day is not None:
        rng = _month_day_range(engine, month_day, have, source)
        if rng is not None:
            return rng
    place = release_facts.placed(engine, built) if built else None
    if place is None:
        return ReleaseRange(engine, "after-newest", (have[-1],), source)
    kind = "nightly" if place.next else "after-newest"
    return ReleaseRange(engine, kind, (place.at,), source, place)


def _month_day_range(
    engine: str, month_day: tuple[int, int], have: tuple[str, ...], source: str
) -> ReleaseRange | None:
    """An undated nightly (``dev-nightly-0820``): the year is unknown, so it is any of the
    nightlies of that month and day, from the release before the earliest year's up to the
    latest year's; a range of kind ``image`` that is never an error."""
    places = release_facts.placed_each_year(engine, *month_day)
    if not places:
        return None
    lo, hi = places[0].at, places[-1].at
    releases = have[have.index(lo): have.index(hi) + 1]
    years = ", ".join(
        f"{p.built.year} (at or after {p.at})" for p in places
    )
    basis = (f"a nightly of {month_day[0]:02d}-{month_day[1]:02d} whose year the tag does not "
             f"say: the nightlies of that day in {years}")
    return ReleaseRange(engine, "image", releases, source, basis=basis, fork=True)


def _install_range(spec: LaunchSpec, have: tuple[str, ...]) -> ReleaseRange:
    installs = engine_installs(spec)
    for inst in installs:
        where = f" at line {inst.span.line}" if inst.span else ""
        shown = f"`{inst.command or inst.requirement}`{where}"
        if inst.kind in ("path", "editable", "vcs") or is_nightly(inst.command):
            return ReleaseRange(spec.engine, "after-newest", (have[-1],), shown)
        if not inst.specifier and not inst.symbolic:
            prose = _prose_floor(spec)  # "vLLM 0.11.1 or newer" above it: from there up
            releases = releases_from(spec.engine, str(prose)) if prose is not None else have
            return ReleaseRange(spec.engine, "latest", releases or have, shown,
                                newest_by=f"{shown} installs")
        floor = _lower_bound(inst.specifier) or _prose_floor(spec)
        if floor is not None:
            releases = releases_from(spec.engine, str(floor))
            if not releases:  # above every profile: as for a floor, never an error
                return ReleaseRange(spec.engine, "after-newest", (have[-1],), shown)
            return ReleaseRange(
                spec.engine, "latest", releases, shown, newest_by=f"{shown} installs"
            )
    if spec.floor:
        rng = _floor_range(spec, have, f"min_vllm_version {spec.floor}")
        if rng is not None:
            return rng
    prose = _prose_floor(spec)
    if prose is not None:  # "vLLM 0.11.0 or later" in the text: the floor up to the newest
        releases = releases_from(spec.engine, str(prose))
        source = spec.context.get("prose_floor_from", str(prose))
        if not releases:
            return ReleaseRange(spec.engine, "after-newest", (have[-1],), source)
        return ReleaseRange(spec.engine, "floor", releases, source)
    local = spec.context.get("launcher_path", "")
    if local and not local.startswith("/"):  # a project's own environment: often a source build
        return ReleaseRange(spec.engine, "local", (have[-1],), f"`{local}`")
    return ReleaseRange(spec.engine, "any", have, "the document installs no release of it")


def _prose_floor(spec: LaunchSpec):  # noqa: ANN202
    """The floor the document's text states before the launch (``sources.markdown``)."""
    return release_version(spec.context.get("prose_floor", ""))


def _lower_bound(specifier: str):  # noqa: ANN202
    m = re.match(r"\s*>=?\s*([0-9][0-9.]*)\s*$", specifier or "")
    return release_version(m.group(1)) if m else None


def _judged_on(spec: LaunchSpec, res: Resolution, rng: ReleaseRange) -> Resolution:
    """A copy of ``res`` judged on the range's newest release, with the range as its note."""
    today = rng.today
    prof = profiles.load(spec.engine, today) if today else None
    if prof is None:
        return res
    primary = Target(prof, "primary", rng.describe(), floating=True)
    others = [t for t in res.targets if t.role != "primary"]
    notes = [n for n in res.notes if n not in res.guess_notes]
    return replace(res, targets=[primary, *others], notes=[rng.describe(), *notes], capped=True,
                   on_range={})
