"""Facts across releases: in which releases each flag, env var and value exists.

Built from the committed profiles by ``servelint profile index ENGINE`` (and after every
``servelint profile build``) into ``profiles/data/<engine>/history.json.gz`` so a check never
loads every profile. Format 2 (docs/profile-format.md): ``presence[kind][key]`` is a *run
string* over the indices into ``releases``: comma-separated runs ``a-b`` (a to b, both in)
or ``a`` (one release), ascending, e.g. ``"5-38"``, ``"0-3,7-38"``, ``"4"``. A key is nearly
always one run, so the index decodes ~5x faster than as lists of indices (format 1); each
key's runs are expanded on first use only.
"""

from __future__ import annotations

import bisect
import gzip
import io
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import Version

from servelint import profiles
from servelint.engines import registry


def _collect(profile: profiles.Profile) -> dict[str, set[str]]:
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


FORMAT = 2  # presence as run strings; format 1 (lists of indices) is rejected


class IndexFormatError(ValueError):
    """A history index this servelint cannot read (another format)."""


def encode_runs(indices: Iterable[int]) -> str:
    """Strictly ascending release indices as a run string: ``[0, 1, 2, 3, 7, 8]`` -> ``"0-3,7-8"``."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i <= runs[-1][1]:
            raise ValueError(f"release indices not strictly ascending at {i}")
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


def _runs(text: str) -> Iterable[tuple[int, int]]:
    for part in text.split(",") if text else ():
        low, _, high = part.partition("-")
        yield int(low), int(high or low)


def decode_runs(text: str) -> tuple[int, ...]:
    """The release indices of a run string: ``"0-3,7-8"`` -> ``(0, 1, 2, 3, 7, 8)``."""
    return tuple(i for low, high in _runs(text) for i in range(low, high + 1))


def presence_lists(engine: str) -> dict[str, dict[str, list[int]]]:
    """For each kind and key, the ascending indices into ``profiles.available(engine)`` of
    the releases whose profile has it."""
    table: dict[str, dict[str, list[int]]] = {}
    for i, version in enumerate(profiles.available(engine)):
        prof = profiles.load(engine, version)
        assert prof is not None
        for kind, keys in _collect(prof).items():
            bucket = table.setdefault(kind, {})
            for key in keys:
                bucket.setdefault(key, []).append(i)
    return table


def _deprecated(engine: str) -> dict[str, dict[str, str]]:
    """For each deprecated option string, the releases deprecating it with their message."""
    deprecated: dict[str, dict[str, str]] = {}
    for version in profiles.available(engine):
        prof = profiles.load(engine, version)
        assert prof is not None
        for act in prof.actions:
            if act.deprecated:
                for opt in act.accepted:
                    deprecated.setdefault(opt, {})[version] = act.raw.get("deprecated_message", "")
    return deprecated


def build_index(engine: str) -> dict[str, Any]:
    presence = {
        kind: {key: encode_runs(idx) for key, idx in bucket.items()}
        for kind, bucket in presence_lists(engine).items()
    }
    return {
        "format": FORMAT,
        "engine": engine,
        "releases": list(profiles.available(engine)),
        "presence": presence,
        "deprecated": _deprecated(engine),
    }


def index_bytes(engine: str) -> bytes:
    """The history file of ``engine`` as built from its committed profiles: the same bytes
    for the same profiles (keys sorted, gzip without name or time)."""
    payload = json.dumps(build_index(engine), sort_keys=True, separators=(",", ":")).encode()
    out = io.BytesIO()  # GzipFile, not gzip.compress: its header names no OS (zlib's would)
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as fh:
        fh.write(payload)
    return out.getvalue()


def write_index(engine: str) -> str:
    path = profiles.folder(engine) / "history.json.gz"
    path.write_bytes(index_bytes(engine))
    found = registry.find(engine)
    if found is not None:
        found.forget("history")
    return str(path)


@dataclass(slots=True, eq=False)
class Presence:
    """The releases in which a key (option, env variable, value) exists."""

    releases: tuple[str, ...]  # releases (of all known) in which the key exists

    @property
    def first(self) -> str | None:
        return self.releases[0] if self.releases else None

    @property
    def last(self) -> str | None:
        return self.releases[-1] if self.releases else None


class History:
    """The history index of one engine; ``data`` as ``build_index`` returns it."""

    def __init__(self, data: dict[str, Any]):
        if data.get("format") != FORMAT:
            raise IndexFormatError(
                f"history index of {data.get('engine', '?')} is format {data.get('format', 1)}, "
                f"this servelint reads format {FORMAT}: rebuild it with "
                f"`servelint profile index {data.get('engine', 'ENGINE')}`"
            )
        self.engine = data["engine"]
        self.releases: list[str] = data["releases"]
        self.position = {r: i for i, r in enumerate(self.releases)}
        self._between: dict[str, float] = {}  # releases without a profile: between two
        self._presence: dict[str, dict[str, str]] = data["presence"]  # run strings
        self.deprecated: dict[str, dict[str, str]] = data.get("deprecated", {})
        self._of: dict[tuple[str, str], Presence] = {}
        self._decoded: dict[tuple[str, str], tuple[int, ...]] = {}
        self._spans_of: dict[str, list[tuple[str, int, int]]] = {}
        self._next_without: dict[tuple[str, str, str], str | None] = {}

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
            idx = self.indices(kind, key)
            found = self._of[(kind, key)] = Presence(tuple(self.releases[i] for i in idx))
        return found

    def indices(self, kind: str, key: str) -> tuple[int, ...]:
        """The ascending indices into ``releases`` of the releases that have the key."""
        found = self._decoded.get((kind, key))
        if found is None:
            text = self._presence.get(kind, {}).get(key)
            if text is None:
                return ()  # not memoized: a check asks for many names no release has
            found = self._decoded[(kind, key)] = decode_runs(text)
        return found

    def keys_in(self, kind: str, index: int) -> list[str]:
        """The keys of ``kind`` that release ``releases[index]`` has, sorted."""
        return [key for key, low, high in self._spans(kind) if low <= index <= high]

    def _spans(self, kind: str) -> list[tuple[str, int, int]]:
        """(key, first, last) for each run of each key of ``kind``, sorted by key: parsed once
        for a scan of every key (a key's runs are disjoint, so a release matches one at most)."""
        found = self._spans_of.get(kind)
        if found is None:
            bucket = self._presence.get(kind, {})
            found = self._spans_of[kind] = [
                (key, low, high) for key in sorted(bucket) for low, high in _runs(bucket[key])
            ]
        return found

    def removed_after(self, kind: str, key: str, release: str) -> str | None:
        """The first release after the last one <= ``release`` that lacks the key (it was removed)."""
        idx = self.indices(kind, key)
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
        for i in self.indices(kind, key):
            if i > pos:
                return self.releases[i]
        return None

    def next_release_without(self, kind: str, key: str, release: str) -> str | None:
        """First release after ``release`` where the key is absent (the key exists in ``release``).
        Memoized: the upgrade rules ask it for each flag of each launch (a small recipe: 36
        questions, 1872 times)."""
        memo = (kind, key, release)
        if memo not in self._next_without:
            self._next_without[memo] = self._next_release_without(kind, key, release)
        return self._next_without[memo]

    def _next_release_without(self, kind: str, key: str, release: str) -> str | None:
        idx = self.indices(kind, key)  # sorted: skip the run of releases that have it
        i = math.floor(self._pos(release)) + 1
        j = bisect.bisect_left(idx, i)
        while j < len(idx) and idx[j] == i:
            i, j = i + 1, j + 1
        return self.releases[i] if i < len(self.releases) else None

    def is_after(self, a: str, b: str) -> bool:
        """Release ``a`` comes after release ``b``."""
        return self._pos(a) > self._pos(b)


def load(engine: str) -> History | None:
    """The engine's history, read once and kept with its registered ``Engine``; None when the
    engine has no history file."""
    found = registry.find(engine)
    return _read(engine) if found is None else found.derived("history", lambda e: _read(e.name))


def _read(engine: str) -> History | None:
    path = profiles.folder(engine) / "history.json.gz"
    if not path.is_file():
        return None
    return History(profiles.read_json_gz(path))
