"""A results cache keyed by file content: unchanged files are not checked twice.

Key = servelint version + the committed profiles + the reader + the options + the bytes of
the file; the result carries the digests of every other file its reader read (a recipe's
taxonomy and strategies, a launcher's sourced helpers at any depth, the configs and
launchers of an InferenceX checkout), checked on load (``unchanged``).
Stored with pickle under ``$SERVELINT_CACHE_DIR`` (default ``~/.cache/servelint``);
only servelint's own files are ever unpickled from there.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from servelint import __version__, profiles

CACHE_FORMAT = "2"
MAX_DEP_BYTES = 64 * 1024 * 1024


def cache_dir() -> Path:
    base = os.environ.get("SERVELINT_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "servelint" if xdg else Path.home() / ".cache" / "servelint"


@cache
def profiles_fingerprint() -> str:
    digest = hashlib.sha256()
    for engine in profiles.engines():
        for path in sorted(profiles.folder(engine).glob("*.json.gz")):
            st = path.stat()
            digest.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return digest.hexdigest()


def _code_fingerprint() -> str:
    """servelint's own sources: an edited rule invalidates the cache (development)."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}".encode())
    return digest.hexdigest()


_CODE = _code_fingerprint()


def key_for(path: str, kind: str, options: Any) -> str | None:
    """The key of one unit's result: servelint's code and profiles, the reader (``kind``),
    the options, and the unit's own bytes (a directory: its path). The other files the
    result depends on are checked on load (``unchanged``): a reader knows them only once it
    has read."""
    p = Path(path)
    digest = hashlib.sha256()
    opts = (options.image, options.engine, options.gpu, options.target_version, options.works_on)
    digest.update(repr((CACHE_FORMAT, __version__, _CODE, profiles_fingerprint(), kind,
                        opts, os.path.abspath(path))).encode())
    if p.is_file():  # no FIFOs
        found = _file_digest(str(p))
        if found is None or found[0] > MAX_DEP_BYTES:
            return None
        digest.update(found[1])
    return digest.hexdigest()


def fingerprints(paths: list[str]) -> list[tuple[str, str]] | None:
    """(path, digest) of each file a result depends on: its bytes, a directory's listing,
    or ``-`` for a path that does not exist (one that appears later changes the result);
    None when they are too large to fingerprint (the result is then not stored)."""
    out, total = [], 0
    for path in paths:
        if os.path.isdir(path):
            listing = _listing_digest(path)
            if listing is None:
                return None
            out.append((path, listing))
            continue
        found = _file_digest(path) if os.path.isfile(path) else None
        if found is None:
            out.append((path, "-"))
            continue
        total += found[0]
        if total > MAX_DEP_BYTES:
            return None
        out.append((path, found[1].hex()))
    return out


def unchanged(stored: list[tuple[str, str]]) -> bool:
    """Whether every file a cached result depends on is as it was when it was stored."""
    now = fingerprints([path for path, _ in stored])
    return now is not None and now == [tuple(x) for x in stored]


@lru_cache(maxsize=1024)
def _listing_digest(path: str) -> str | None:
    """A directory's names, once per run: every recipe of a checkout lists its strategies."""
    try:
        listing = "\0".join(sorted(os.listdir(path))).encode()
    except OSError:
        return None
    return "d" + hashlib.sha256(listing).hexdigest()


@lru_cache(maxsize=4096)
def _file_digest(path: str) -> tuple[int, bytes] | None:
    """(size, sha256) of a file, once per run: recipes share their strategy files."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return len(data), hashlib.sha256(data).digest()


def load(key: str) -> Any | None:
    path = cache_dir() / key[:2] / key
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError):
        return None


def store(key: str, value: Any) -> None:
    folder = cache_dir() / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{key}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, folder / key)
    except OSError:
        pass  # a cache that cannot be written is no cache
