"""Engine release profiles: load lazily, look facts up. Format: docs/profile-format.md."""

from __future__ import annotations

import gc
import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from packaging.version import InvalidVersion, Version

DATA_DIR = Path(__file__).resolve().parent / "data"  # (importlib.resources costs 15 ms)


@dataclass(slots=True, eq=False)
class Action:
    """One parser action (an option with all its spellings)."""

    raw: dict[str, Any]

    @property
    def dest(self) -> str:
        return self.raw["dest"]

    @property
    def kind(self) -> str:
        return self.raw.get("kind", "store")

    @property
    def option_strings(self) -> list[str]:
        return self.raw.get("option_strings", [])

    @property
    def accepted(self) -> list[str]:
        return self.raw.get("accepted") or self.option_strings

    @property
    def takes_value(self) -> bool:
        return self.kind not in {
            "store_true",
            "store_false",
            "store_const",
            "boolean_optional",
            "count",
            "help",
            "version",
        } or self.raw.get("nargs") not in (0, None)

    @property
    def nargs(self) -> Any:
        return self.raw.get("nargs")

    @property
    def choices(self) -> list[str] | None:
        return self.raw.get("choices")

    @property
    def json_dataclass(self) -> str | None:
        return self.raw.get("json_dataclass")

    @property
    def deprecated(self) -> bool:
        return bool(self.raw.get("deprecated"))

    @property
    def primary(self) -> str:
        opts = self.option_strings
        longs = [o for o in opts if o.startswith("--")]
        return (longs or opts or [self.dest])[0]


T = TypeVar("T")

class Profile:
    """Facts of one engine release."""

    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.engine: str = data["engine"]
        self.version: str = data["version"]
        parser = data.get("parser", {})
        self.actions = [Action(a) for a in parser.get("actions", [])]
        self.rules: dict[str, Any] = parser.get("rules", {})
        self.allow_abbrev: bool = parser.get("allow_abbrev", True)
        self.option_index: dict[str, Action] = {}
        self.negative: set[str] = set()
        for act in self.actions:
            for opt in act.accepted:
                self.option_index.setdefault(opt, act)
            self.negative.update(act.raw.get("negative", []))
        self.by_dest: dict[str, Action] = {}
        for act in self.actions:
            self.by_dest.setdefault(act.dest, act)
        self.configs: dict[str, Any] = data.get("configs", {})
        self.late_values: dict[str, Any] = data.get("late_values", {})
        self._late_by_target: dict[str, tuple[str, dict[str, Any]]] = {}
        for name, entry in self.late_values.items():
            for target in entry.get("targets", []):
                self._late_by_target.setdefault(target, (name, entry))
        env = data.get("env", {})
        self.env_registry: dict[str, Any] = env.get("registry", {})
        self.env_read_unregistered: set[str] = set(env.get("read_unregistered", []))
        self.env_unknown_warning: bool = bool(env.get("unknown_warning", False))
        self.env_removed_hints: dict[str, str] = env.get("removed_hints", {})
        self.gates: list[dict[str, Any]] = data.get("gates", [])
        self.image: dict[str, Any] = data.get("image", {})
        self.backends: dict[str, Any] = data.get("backends", {})
        self._fields_at: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
        self._derived: dict[str, Any] = {}

    def derived(self, name: str, compute: Callable[[Profile], T]) -> T:
        """A table ``compute`` derives from this release's facts, made on first use and kept
        with the profile (``load`` keeps one profile per release): a rule's or a parser's index
        of the profile lives here, never in a process-wide dict. ``name`` is the asking
        module's."""
        if name not in self._derived:
            self._derived[name] = compute(self)
        return self._derived[name]

    @cached_property
    def long_options(self) -> tuple[str, ...]:
        """The ``--`` option strings, sorted: what an unknown flag is compared with (computed
        once: a launch of 300 unknown flags asked for it per flag, 30% of its time)."""
        return tuple(sorted(o for o in self.option_index if o.startswith("--")))

    @property
    def label(self) -> str:
        as_ref = self.data.get("stored", {}).get("as")
        return f"{self.engine} {self.version}" + (f" (image {as_ref})" if as_ref else "")

    @property
    def key(self) -> tuple[str, ...]:
        """What identifies the profile's facts in a memo: the release, and for a profile
        built from an image, the image it stands for."""
        return (self.engine, self.version, self.data.get("stored", {}).get("as", ""))

    def late_for(self, target: str) -> tuple[str, dict[str, Any]] | None:
        """The late-checked value set governing an option dest or config path."""
        return self._late_by_target.get(target)

    def config_field_at(self, cls: str, source: str | None) -> tuple[str, dict[str, Any]] | None:
        """(name, spec) of the first field of config class ``cls`` declared at ``source``
        (``path:line``, an option's ``field_source``); indexed per class on first use."""
        if not source:
            return None
        index = self._fields_at.get(cls)
        if index is None:
            index = self._fields_at[cls] = {}
            for name, spec in ((self.configs.get(cls) or {}).get("fields") or {}).items():
                if spec.get("source"):
                    index.setdefault(spec["source"], (name, spec))
        return index.get(source)

    def image_packages(self) -> dict[str, Any]:
        return self.image.get("packages", {})


def _version_key(text: str) -> Version:
    return Version(text)


def folder(engine: str) -> Path:
    """Where the engine's profiles live: its own ``profile_dir``, else the package data."""
    from servelint.engines import registry

    found = registry.find(engine)
    return found.profile_dir if found and found.profile_dir else DATA_DIR / engine


@dataclass(slots=True, eq=False)
class _Folder:
    """One engine's profile folder as this process has read it: its releases, the profiles
    loaded (one per release) and the data files beside them (``beside``)."""

    releases: tuple[str, ...] | None = None
    versions: tuple[Version, ...] = ()  # the releases' numbers, parsed with the listing
    numbers: dict[str, Version] = field(default_factory=dict)  # the same by release text
    loaded: dict[str, Profile | None] = field(default_factory=dict)
    beside: dict[str, Any] = field(default_factory=dict)


# the one memo of profile data: per engine, its folder as read (see ``_Folder``); every
# judged launch asks for its releases and profiles many times (the measured gain is in
# docs/architecture.md, "Speed machinery")
_READ: dict[str, _Folder] = {}


def _folder_read(engine: str) -> _Folder:
    found = _READ.get(engine)
    if found is None:
        found = _READ[engine] = _Folder()
    return found


def forget() -> None:
    """Drop what was read of profiles (after the engine registry changed or a profile was
    written)."""
    _READ.clear()


def available(engine: str) -> tuple[str, ...]:
    """Releases with a committed profile, oldest first."""
    read = _folder_read(engine)
    if read.releases is None:
        read.releases = _releases_in(engine)
        read.versions = tuple(Version(v) for v in read.releases)
        read.numbers = dict(zip(read.releases, read.versions, strict=True))
    return read.releases


def listed_version(release: str) -> Version | None:
    """The number of a release some engine read so far has a profile of (parsed with its
    listing), else None."""
    for read in _READ.values():
        found = read.numbers.get(release)
        if found is not None:
            return found
    return None


def versions(engine: str) -> tuple[Version, ...]:
    """``available(engine)`` as version numbers (sorted the same way)."""
    available(engine)
    return _folder_read(engine).versions


def _releases_in(engine: str) -> tuple[str, ...]:
    folder_ = folder(engine)
    if not folder_.is_dir():
        return ()
    versions = []
    for path in folder_.glob("*.json.gz"):
        name = path.name[: -len(".json.gz")]
        try:
            Version(name)
        except InvalidVersion:
            continue
        versions.append(name)
    return tuple(sorted(versions, key=_version_key))


def engines() -> tuple[str, ...]:
    """The registered engines that have profiles, by name."""
    from servelint.engines import registry

    return tuple(sorted(e.name for e in registry.engines() if available(e.name)))


def load(engine: str, version: str) -> Profile | None:
    """The profile of one release, or None when servelint has none."""
    loaded = _folder_read(engine).loaded
    if version not in loaded:
        loaded[version] = _read_profile(engine, version)
    return loaded[version]


def beside(engine: str, name: str, parse: Callable[[Path], T]) -> T:
    """A data file kept beside the engine's profiles (``releases.json``, ``env_reads.json.gz``),
    parsed by ``parse(path)`` once."""
    kept = _folder_read(engine).beside
    if name not in kept:
        kept[name] = parse(folder(engine) / name)
    return kept[name]


def _read_profile(engine: str, version: str) -> Profile | None:
    path = folder(engine) / f"{version}.json.gz"
    if not path.is_file():
        return None
    data = read_json_gz(path)
    built = load_image_build(engine, version)
    if built is not None:
        data.setdefault("image", {})["build"] = built
    return Profile(data)


def image_build_path(engine: str, version: str, root: Path | None = None) -> Path:
    """Where the image package sets read from a release's build files are stored."""
    return (root / engine if root else folder(engine)) / "images" / f"{version}.json.gz"


def load_image_build(engine: str, version: str) -> dict[str, Any] | None:
    path = image_build_path(engine, version)
    if not path.is_file():
        return None
    return read_json_gz(path)


def read_json_gz(path: Path) -> Any:
    """A gzipped JSON file of servelint's data: decompressed whole and decoded from bytes
    (a text stream over ``gzip.open`` costs ~0.5 ms more per profile).

    Its loaders are cached, so the data lives as long as the process, and JSON builds no
    cycles: the collector is paused while decoding, then every object tracked so far (the
    data, imported modules, memos, the launches being judged) is moved out of its
    generations (``gc.freeze``). Later collections, and the full one at exit, no longer
    traverse them: a small recipe's run spent ~40 ms collecting, ~2 ms now. A frozen
    object is still freed by its reference count; only a cycle among them outlives use."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    return data


def newest(engine: str) -> str | None:
    vs = available(engine)
    return vs[-1] if vs else None


def best_at_or_below(engine: str, version: str) -> str | None:
    """The newest release with a profile that is <= version (for floors like 0.11.1)."""
    try:
        target = Version(version)
    except InvalidVersion:
        return None
    best = None
    for v in available(engine):
        if Version(v) <= target:
            best = v
    return best


def write(
    data: dict[str, Any],
    engine: str,
    version: str,
    root: Path | None = None,
    path: Path | None = None,
) -> Path:
    path = path or (root / engine if root else folder(engine)) / f"{version}.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
        fh.write(payload)
    tmp.replace(path)
    forget()
    return path
