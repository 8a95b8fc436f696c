"""Facts across releases: in which releases each flag, env var and value exists.

Built from the committed profiles by ``servelint profile index`` into
``profiles/data/<engine>/history.json.gz`` so a check never loads every profile.
Presence is stored as sorted lists of release indices into ``releases``.
"""

from __future__ import annotations

import bisect
import gzip
import json
import math
from functools import cache
from typing import Any

from packaging.version import Version

from servelint import profiles


def _collect(profile: profiles.Profile) -> dict[str, set[str]]:
    from packaging.utils import canonicalize_name  # index building only: not at check time

    keys: dict[str, set[str]] = {
        "option": set(),
        "env": set(),
        "late": set(),
        "choice": set(),
        "config_key": set(),
        "image_package": set(),
    }
    for act in profile.actions:
        keys["option"].update(act.accepted)
        for choice in act.choices or []:
            keys["choice"].add(f"{act.dest}={choice}")
    for name in profile.env_registry:
        keys["env"].add(name)
    for name, entry in profile.late_values.items():
        keys["late"].add(name)  # the set itself: a value is only new where the set is not
        for value in entry.get("values", []):
            keys["late"].add(f"{name}={value}")
    for pkg in profile.image_packages():
        keys["image_package"].add(canonicalize_name(pkg))
    for cname, cfg in profile.configs.items():
        for field in cfg.get("fields", {}):
            keys["config_key"].add(f"{cname}.{field}")
    return keys


def build_index(engine: str) -> dict[str, Any]:
    releases = list(profiles.available(engine))
    table: dict[str, dict[str, list[int]]] = {}
    deprecated: dict[str, dict[str, str]] = {}
    for i, version in enumerate(releases):
        prof = profiles.load(engine, version)
        assert prof is not None
        for kind, keys in _collect(prof).items():
            bucket = table.setdefault(kind, {})
            for key in keys:
                bucket.setdefault(key, []).append(i)
        for act in prof.actions:
            if act.deprecated:
                for opt in act.accepted:
                    deprecated.setdefault(opt, {})[version] = act.raw.get("deprecated_message", "")
    return {"engine": engine, "releases": releases, "presence": table, "deprecated": deprecated}


def write_index(engine: str) -> str:
    data = build_index(engine)
    path = profiles.folder(engine) / "history.json.gz"
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
        fh.write(payload)
    load.cache_clear()
    return str(path)


class Presence:
    """The releases in which a key (option, env variable, value) exists."""

    __slots__ = ("releases",)

    def __init__(self, releases: tuple[str, ...]) -> None:
        self.releases = releases  # releases (of all known) in which the key exists

    @property
    def first(self) -> str | None:
        return self.releases[0] if self.releases else None

    @property
    def last(self) -> str | None:
        return self.releases[-1] if self.releases else None


class History:
    def __init__(self, data: dict[str, Any]):
        self.engine = data["engine"]
        self.releases: list[str] = data["releases"]
        self.position = {r: i for i, r in enumerate(self.releases)}
        self._between: dict[str, float] = {}  # releases without a profile: between two
        self.presence: dict[str, dict[str, list[int]]] = data["presence"]
        self.deprecated: dict[str, dict[str, str]] = data.get("deprecated", {})
        self._of: dict[tuple[str, str], Presence] = {}

    def _pos(self, release: str) -> float:
        """Index of a release in ``releases`` (fractional for one servelint has no profile of)."""
        found = self.position.get(release)
        if found is None:
            found = self._between.get(release)
        if found is None:
            target = Version(release)
            below = [i for i, r in enumerate(self.releases) if Version(r) < target]
            found = self._between[release] = (below[-1] + 0.5) if below else -0.5
        return found

    def of(self, kind: str, key: str) -> Presence:
        found = self._of.get((kind, key))
        if found is None:
            idx = self.presence.get(kind, {}).get(key, [])
            found = self._of[(kind, key)] = Presence(tuple(self.releases[i] for i in idx))
        return found

    def _indices(self, kind: str, key: str) -> list[int]:
        return self.presence.get(kind, {}).get(key, [])

    def removed_after(self, kind: str, key: str, release: str) -> str | None:
        """The first release after the last one <= ``release`` that lacks the key (it was removed)."""
        idx = self._indices(kind, key)
        pos = self._pos(release)
        before = [i for i in idx if i <= pos]
        if not before:
            return None
        have = set(idx)
        for i in range(before[-1] + 1, len(self.releases)):
            if i not in have:
                return self.releases[i]
        return None

    def first_after(self, kind: str, key: str, release: str) -> str | None:
        pos = self._pos(release)
        for i in self._indices(kind, key):
            if i > pos:
                return self.releases[i]
        return None

    def next_release_without(self, kind: str, key: str, release: str) -> str | None:
        """First release after ``release`` where the key is absent (the key exists in ``release``)."""
        idx = self._indices(kind, key)  # sorted: skip the run of releases that have it
        i = math.floor(self._pos(release)) + 1
        j = bisect.bisect_left(idx, i)
        while j < len(idx) and idx[j] == i:
            i, j = i + 1, j + 1
        return self.releases[i] if i < len(self.releases) else None

    def is_after(self, a: str, b: str) -> bool:
        """Release ``a`` comes after release ``b``."""
        return self._pos(a) > self._pos(b)


@cache
def load(engine: str) -> History | None:
    path = profiles.folder(engine) / "history.json.gz"
    if not path.is_file():
        return None
    return History(profiles.read_json_gz(path))
