"""A results cache keyed by file content: unchanged files are not checked twice.

Key = servelint version + the committed profiles + the options + the bytes of the file
and of the files its result depends on (a recipe's repo taxonomy/strategies/kv_store,
a launcher's sibling scripts, every config and launcher of an InferenceX checkout).
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

CACHE_FORMAT = "1"
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


def _dependencies(path: Path, kind: str) -> list[Path]:
    if kind == "recipe":
        for parent in path.parents:
            if (parent / "taxonomy.yaml").is_file():
                deps = [parent / "taxonomy.yaml"]
                for sub in ("strategies", "kv_store"):
                    deps += sorted((parent / sub).glob("*.yaml"))
                return deps
        return []
    if kind == "script":
        return sorted(p for d in {path.parent, path.parent.parent} for p in d.glob("*.sh"))
    if kind == "inferencex-master":
        return sorted(path.parent.glob("*.sh")) + sorted(path.parent.glob("*.yaml"))
    if kind == "inferencex-root":
        return sorted(p for p in path.rglob("*") if p.is_file() and
                      p.suffix in {".sh", ".yaml", ".yml", ".env"})
    return []


def key_for(path: str, kind: str, options: Any) -> str | None:
    p = Path(path)
    digest = hashlib.sha256()
    opts = (options.image, options.engine, options.gpu, options.target_version, options.works_on)
    digest.update(repr((CACHE_FORMAT, __version__, _CODE, profiles_fingerprint(), kind,
                        opts)).encode())
    total = 0
    files = [p] if p.is_file() else []
    for f in files + [d for d in _dependencies(p, kind) if d.is_file()]:  # no FIFOs
        found = _file_digest(str(f))
        if found is None:
            return None
        size, file_digest = found
        total += size
        if total > MAX_DEP_BYTES:
            return None
        digest.update(str(f).encode() + b"\0" + file_digest)
    return digest.hexdigest()


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
