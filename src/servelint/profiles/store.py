"""The user's profile store: profiles built from images (``servelint profile build ENGINE
--root|--image-archive|--image … --as REF``), each standing for one image reference.

Where: ``--profiles-dir``, else ``$SERVELINT_PROFILES``, else ``$XDG_DATA_HOME/servelint/
profiles`` (``~/.local/share/servelint/profiles``). Layout: ``<engine>/<slug>.json.gz`` per
profile and ``index.json`` listing them (reference, image ID, engine, release, provenance),
so a check reads one small file to learn whether an image has a stored profile. A profile
built by another builder than the installed one is reported and not used (the builder's
source files are hashed: ``builder_digest``)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servelint import profiles
from servelint.engines import registry
from servelint.profiles import Profile, read_json_gz

_INDEX = "index.json"
_MAX_INDEX = 4 << 20
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def set_dir(path: Path | None) -> None:
    """``--profiles-dir``: kept in the environment so worker processes see it too."""
    if path:
        os.environ["SERVELINT_PROFILES"] = str(Path(path).resolve())


def store_dir() -> Path:
    if os.environ.get("SERVELINT_PROFILES"):
        return Path(os.environ["SERVELINT_PROFILES"])
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "servelint" / "profiles"


def normalize(ref: str) -> str:
    """An image reference as Docker reads it: ``sglang:x`` is ``docker.io/library/sglang:x``,
    ``me/img`` is ``docker.io/me/img:latest``; a digest is kept."""
    ref = ref.strip()
    name, at, digest = ref.partition("@")
    first, slash, _rest = name.partition("/")
    if not slash or not ("." in first or ":" in first or first == "localhost"):
        name = "docker.io/" + (name if slash else "library/" + name)
    last = name.rsplit("/", 1)[-1]
    if ":" not in last and not at:
        name += ":latest"
    return name.lower() + (at + digest.lower() if at else "")


def builder_digest(engine: str) -> str:
    """A digest of the builder's sources for ``engine``: the shared builder, the engine's
    builder and the engine's package (read as bytes, never imported). Asked for every
    stored image a check meets: the ~100 files are read once per registered engine, kept
    with it (``Engine.derived``)."""
    found = registry.find(engine)
    if found is None:
        return _sources_digest(engine)
    return found.derived("store.builder_digest", lambda eng: _sources_digest(eng.name))


def _sources_digest(engine: str) -> str:
    digest = hashlib.sha256()
    builders = _PACKAGE_DIR / "builders"
    paths = [*sorted(builders.glob("*.py")), *sorted((builders / engine).rglob("*.py")),
             *sorted((_PACKAGE_DIR / "engines" / engine).rglob("*.py"))]
    for path in paths:
        digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(slots=True)
class Entry:
    """One stored profile, as the index lists it."""

    ref: str
    engine: str
    version: str
    file: str
    image_id: str
    source: dict[str, Any]
    built: str
    builder_digest: str
    entrypoint: list[str] | None = None  # the image config's Entrypoint (an archive's)

    def fresh(self) -> bool:
        return self.builder_digest == builder_digest(self.engine)

    def provenance(self) -> str:
        src = self.source
        where = src.get("path", "?")
        image_id = f", image {self.image_id[:19]}" if self.image_id else ""
        return f"built {self.built} from {src.get('kind', '?')} {where}{image_id}"


def _slug(ref: str) -> str:
    tail = re.sub(r"[^a-z0-9._-]+", "_", ref.lower())[-60:]
    return f"{tail}-{hashlib.sha256(ref.encode()).hexdigest()[:10]}"


def entries(folder: Path | None = None) -> list[Entry]:
    """The stored profiles, from the index (a missing or unreadable index: none)."""
    path = (folder or store_dir()) / _INDEX
    try:
        if not path.is_file() or path.stat().st_size > _MAX_INDEX:
            return []
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Entry(**{k: item[k] for k in Entry.__slots__ if k in item}))
        except TypeError:  # a field missing or of another shape: not an entry of ours
            continue
    return out


def write(data: dict[str, Any], as_ref: str, folder: Path | None = None) -> Path:
    """Store a built profile for ``as_ref`` and list it in the index (replacing an entry
    for the same reference)."""
    folder = folder or store_dir()
    ref = normalize(as_ref)
    stored = data.setdefault("stored", {})
    stored["as"] = ref
    if "installed" in data.get("image", {}):
        data["image"]["installed_in"] = ref
    rel = f"{data['engine']}/{_slug(ref)}.json.gz"
    path = profiles.write(data, data["engine"], data["version"], path=folder / rel)
    entry = Entry(
        ref=ref,
        engine=data["engine"],
        version=data["version"],
        file=rel,
        image_id=stored.get("digest", ""),
        source={k: v for k, v in stored.items() if k in ("kind", "path", "digest")},
        built=stored.get("built", ""),
        builder_digest=stored.get("builder_digest", ""),
        entrypoint=data.get("image", {}).get("config", {}).get("entrypoint"),
    )
    kept = [e for e in entries(folder) if e.ref != ref]
    _write_index(folder, [*kept, entry])
    return path


def _write_index(folder: Path, items: list[Entry]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    payload = json.dumps([{k: getattr(e, k) for k in Entry.__slots__} for e in items], indent=1)
    tmp = folder / (_INDEX + ".tmp")
    tmp.write_text(payload + "\n", encoding="utf-8")
    tmp.replace(folder / _INDEX)


def match(image: str, folder: Path | None = None) -> Entry | None:
    """The stored profile standing for ``image``: the same reference, or an image ID or
    digest the reference names."""
    ref = normalize(image)
    digest = ref.partition("@")[2]
    for entry in entries(folder):
        if entry.ref == ref or (digest and digest in (entry.image_id, entry.ref.partition("@")[2])):
            return entry
    return None


def load(entry: Entry, folder: Path | None = None) -> Profile | None:
    path = (folder or store_dir()) / entry.file
    try:
        return Profile(read_json_gz(path))
    except (OSError, ValueError, KeyError):
        return None


def state() -> tuple[str, int, int]:
    """Where the index is and its stat: a memo of resolutions keys on it."""
    path = store_dir() / _INDEX
    try:
        st = path.stat()
    except OSError:
        return (str(path), 0, 0)
    return (str(path), st.st_mtime_ns, st.st_size)


def fingerprint() -> str:
    """What a cached result depends on: the index (each entry names its file's build)."""
    path = store_dir() / _INDEX
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
    except OSError:
        return ""
