"""The verdict over a launch's release range (``ranges.ReleaseRange``), for the errors found
on the range's newest release.

``judge`` turns each error found on the release a launch is judged against into the range's
verdict, from the releases on which that error's option fails (another cause failing every
release does not make this one fail everywhere): an error when it fails on every release of
the range (or the launch is pinned), or on today's newest release when something gives
everyone that release today (an official ``:latest`` image, an unpinned engine install); a
warning when it fails on the newest release of a range nothing installs today (``any``, a
guide's floor) and always for nightlies and unknown builds; each message naming the releases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelint import profiles
from servelint.model import Finding, LaunchSpec, Severity
from servelint.releases import works_on as works_on_mod
from servelint.releases.ranges import ReleaseRange
from servelint.releases.resolve import release_version
from servelint.rules import registry
from servelint.rules.base import Scope

# ------------------------------------------------------------------ the verdict


def fails_everywhere(rng: ReleaseRange, works: dict[str, Any] | None) -> bool:
    """Whether the launch passes on no release of the range (``works``: its first and last
    passing release over every profile: releases outside them certainly fail)."""
    if works is None or not rng.releases:
        return False
    first, last = works.get("first"), works.get("last")
    if first is None or last is None:
        return True
    lo, hi = release_version(rng.releases[0]), release_version(rng.releases[-1])
    return release_version(first) > hi or release_version(last) < lo


def _after(engine: str, release: str) -> str | None:
    have = profiles.available(engine)
    at = have.index(release) if release in have else -1
    return have[at + 1] if 0 <= at < len(have) - 1 else None


def verdict(rng: ReleaseRange, works: dict[str, Any] | None) -> tuple[Severity, str]:
    """Severity and the words naming the releases, for an error found on ``rng.today``."""
    lo, hi, engine = rng.releases[0], rng.releases[-1], rng.engine
    if rng.kind == "nightly" and rng.placement is not None:
        # at or after the release before its build: a later release it passes on may hold
        # what the nightly already has (release branches are cut before the release date)
        before = (
            f"fails on {engine} {hi}, the last release before {rng.source} was built "
            f"({rng.placement.built})"
        )
        later = (works or {}).get("first")
        if later:
            return (
                Severity.WARNING,
                f"{before}; it passes on {engine} {later}, which the nightly may already include",
            )
        newest = profiles.available(engine)[-1]
        return Severity.WARNING, f"{before} and on every later release up to {newest}"
    if rng.kind == "local":
        return Severity.WARNING, (
            f"fails on {engine} {hi}, the newest release servelint knows; {rng.source} may "
            f"hold another build and cannot be checked exactly"
        )
    if rng.kind == "after-newest":
        return Severity.WARNING, (
            f"fails on {engine} {hi}, the newest release servelint knows; "
            f"{rng.source} is newer and cannot be checked exactly"
        )
    if fails_everywhere(rng, works) and not rng.fork:
        where = f"every {engine} release {lo}–{hi}" if lo != hi else f"{engine} {hi}"
        how = {
            "latest": f", whichever {rng.source} installs",
            "floor": f", from {rng.source} to the newest",
            "image": f" {rng.source} can hold",
        }.get(rng.kind, " (none is pinned)")
        return Severity.ERROR, f"fails on {where}{how}"
    last = (works or {}).get("last")
    start = _after(engine, last) if last else None
    if start and release_version(start) <= release_version(hi):
        since = f"{start} and later" if start != hi else start
    else:
        since = hi
    if rng.kind == "image" and last:
        return Severity.WARNING, (
            f"fails on {engine} {since}; passes on {last}: {rng.source} can hold any of {lo}–{hi}"
        )
    if rng.kind == "image":  # fails everywhere, on a fork's build
        where = f"every {engine} release {lo}–{hi}" if lo != hi else f"{engine} {hi}, the release"
        return Severity.WARNING, (
            f"fails on {where} {rng.source} can hold; a build of a fork or an unreleased "
            "commit may accept it"
        )
    if rng.newest_by:  # everyone who follows it today gets the newest release: it crashes
        return Severity.ERROR, (
            f"fails on {engine} {since}, and {rng.newest_by} {hi} today "
            f"(the newest release servelint knows)"
        )
    who = rng.source if rng.kind == "latest" else "an unpinned install"
    return Severity.WARNING, f"fails on {engine} {since}, which {who} installs today ({hi})"


def judge(
    findings: list[Finding], rng: ReleaseRange, works_of: Callable[[Finding], dict[str, Any]]
) -> None:
    """Give each error found on the range's newest release the range's severity and words,
    from the releases on which that finding itself holds (``works_of``: its first and last
    release without it): another cause failing every release makes no error of this one."""
    today = rng.today
    if today is None:
        return
    for f in findings:
        if f.severity == Severity.ERROR and f.release == today:
            severity, words = verdict(rng, works_of(f))
            f.severity = min(f.severity, severity)
            f.message += f" ({words})"


def mark_guess(findings: list[Finding], rng: ReleaseRange) -> None:
    """A launch on a nightly or an image newer than every profile is judged on one release
    it may not be: its warnings that state a fact of that release (``… sglang 0.5.23 no
    longer reads it``) say how it was placed and that this is a guess (errors get the words
    from :func:`judge`). Findings that do not depend on the release judged (notes, a
    parser's first release against the floor) are left."""
    today = rng.today
    if rng.kind == "image" and rng.fork and today is not None:
        # a custom or development build may read a name no release up to it reads
        for f in findings:
            if _newer_may_read(f, today):
                f.severity = Severity.INFO
                f.message += f" ({rng.source} is a build that may read it)"
            elif f.severity == Severity.WARNING and f.release == today and \
                    rng.source not in f.message and f"{rng.engine} {today}" in f.message:
                f.message += f" ({rng.describe()})"  # what it says holds on that release
        return
    if rng.kind not in ("after-newest", "nightly", "local") or today is None:
        return
    release = f"{rng.engine} {today}"
    words = f"{rng.describe()}, so this is a guess"
    for f in findings:
        rule = registry.get(f.code)
        if _newer_may_read(f, today):
            f.severity = Severity.INFO
            f.message += f" ({rng.describe()}: a build newer than {today} may read it)"
            continue
        if (
            f.release == today
            and f.severity == Severity.WARNING
            and rule is not None
            and rule.scope in (Scope.ARGV, Scope.LAUNCH)
            and release in f.message
            and rng.source not in f.message  # judge's words (a demoted error) name it too
        ):
            f.message += f" ({words})"


def _newer_may_read(f: Finding, today: str) -> bool:
    """An env-unknown warning judged on ``today`` for a build newer than it: a name no
    release up to ``today`` reads (or one a later release adds) may be read by the newer
    build, so nothing true is said of it; a name an earlier release read and ``today``
    dropped ("was removed after") stays removed."""
    return (
        f.code == "SL121"
        and f.release == today
        and f.severity == Severity.WARNING
        and " was removed after " not in f.message
    )


# ------------------------------------------------------------------ when to compute more


def has_error_on(findings: list[Finding], release: str | None) -> bool:
    return any(f.severity == Severity.ERROR and f.release == release for f in findings)


def range_works(
    spec: LaunchSpec, rng: ReleaseRange, passes, *, prune: bool = True  # noqa: ANN001
) -> dict[str, Any]:
    """``{"first", "last"}`` as ``works_on`` gives them, as far as ``verdict`` needs them, for
    a launch (or one finding of it: ``passes`` then asks whether that finding is absent, and
    ``prune`` is off) that fails on the range's newest release: the scan goes down from there
    and stops at the first release it passes on (``None`` both: it passes on none of the
    range). With ``prune``, releases the history index proves the launch failing are not
    checked. A placed nightly scans up from its release instead."""
    def ok(release: str) -> bool:
        if prune and works_on_mod.certainly_fails(spec, release):
            return False
        return bool(passes(spec, release))

    if rng.kind == "nightly":  # at or after its release: the first later release it passes on
        have = profiles.available(rng.engine)
        for release in have[have.index(rng.releases[-1]) + 1 :]:
            if ok(release):
                return {"first": release, "last": None}
        return {"first": None, "last": None}
    for release in reversed(rng.releases[:-1]):
        if ok(release):
            return {"first": release, "last": release}
    return {"first": None, "last": None}
