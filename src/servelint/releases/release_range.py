"""The release-range rule for engines whose profiles do not cover every release.

TensorRT-LLM profiles exist only for releases whose sources could be obtained and verified, so
an image tag often names a release between (or beyond) the profiled ones. Such a launch is
judged against the nearest profiled release on each side — capped at warning, naming the
releases judged — and never gets an error from the guess.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.engines import registry


def neighbours(engine: str, release: str) -> list[tuple[str, str]]:
    """(profiled release, "below"|"above") nearest to ``release`` on each side."""
    found = registry.find(engine)
    if found is None or not found.sparse_profiles:
        return []
    try:
        target = Version(release)
    except InvalidVersion:
        return []
    have = [(Version(v), v) for v in profiles.available(engine)]
    below = [v for pv, v in have if pv < target]
    above = [v for pv, v in have if pv > target]
    out = []
    if below:
        out.append((below[-1], "below"))
    if above:
        out.append((above[0], "above"))
    return out


# rules whose every finding says a name is unknown to the release judged: a newer release may
# have added it, so an older profile cannot say so (config-invalid marks its own problems)
UNKNOWN_NAME_RULES = ("flag-unknown", "env-unknown")


def judges_newer(side: str) -> bool:
    """A profile ``below`` the release it judges is older: names it lacks may be new."""
    return side == "below"


def newer_note(engine: str, release: str, others: list[tuple[str, str]]) -> str:
    """The one note of a launch whose release is newer than the profile that judges it."""
    older = next((v for v, s in others if judges_newer(s)), "")
    return (
        f"{engine} {release} has no profile: names it may have added since {older} (flags, "
        f"environment variables, option-file keys and values) are not judged by the older "
        f"profile; build its profile with `servelint profile build {engine} {release} "
        f"--source-dir <source tree of {engine} {release}>`"
    )


def how(image_tag: str, others: list[tuple[str, str]], basis: str = "") -> str:
    """The note (and each target's ``how``) of a launch judged by ``others``; ``basis``:
    where the release comes from when the tag does not spell it (``engines.image_table``)."""
    judged = " and ".join(f"{v} ({s})" for v, s in others)
    lead = f"{basis}: no profile of that release" if basis else \
        f"image tag {image_tag} has no profile"
    return (
        f"{lead}; judged by the nearest profiled "
        f"release{'s' if len(others) > 1 else ''} {judged}, findings capped at warning"
    )
