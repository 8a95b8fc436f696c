"""The results cache: an unchanged unit is not checked twice; a changed input is never served.

An entry lives at ``$SERVELINT_CACHE_DIR/<k[:2]>/<k>.json`` (default ``~/.cache/servelint``);
``k`` (``key_for``) hashes the cache format, servelint's version, the bytes of every file of the
installed package (code, bundled profiles and data) and of every engine's profile folder, the
reader, the unit's absolute path and bytes, the options that change a result (``--image``,
``--engine``, ``--gpu``, ``--target-version``, works-on mode) and the config's effective
settings (image mappings included). The result carries ``stamps``: the digest of every file
its reader read (``sources.common.deps``: sourced helpers at any depth, bound launchers, the
master config, a recipe's taxonomy and strategies), ``-`` for a path it looked for and did not
find, a listing digest for a folder; ``unchanged`` checks them before a hit is used.

Entries are JSON through ``servelint.pipeline.codec`` (nothing is executed or imported on load); a
result's launches are a second file, ``<k>.launches``, holding their summaries one per line
as the JSON report writes them (with a digest of the lines), read only when a report lists
them and then written as they are. Entries are opened without following symlinks or
blocking on FIFOs and devices, checked to be regular files of bounded size, and written
atomically. Anything else (a planted pickle, garbage, a
FIFO, another unit's entry, a forged field) is a miss.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import os
import secrets
import stat
from functools import cache
from pathlib import Path
from typing import Any

from servelint import __version__, profiles
from servelint.pipeline.codec import CodecError, decode, encode
from servelint.pipeline.launch_report import LaunchReport
from servelint.profiles import store as profile_store
from servelint.reporters.json_out import encode_item
from servelint.sources.common.deps import WORKING_DIRECTORY
from servelint.sources.common.walk import Skipped, walk
from servelint.util.lru import Lru

CACHE_FORMAT = "7"
MAX_DEP_BYTES = 64 * 1024 * 1024
MAX_ENTRY_BYTES = 256 * 1024 * 1024
_PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    base = os.environ.get("SERVELINT_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "servelint" if xdg else Path.home() / ".cache" / "servelint"


def _tree_files(root: Path) -> list[str]:
    return sorted(p for p in walk(str(root), {"__pycache__"}) if not isinstance(p, Skipped))


def _tree_digest(root: Path, files: list[str] | None = None) -> str:
    """sha256 over the relative path and bytes of every file under ``root``."""
    digest = hashlib.sha256()
    for path in _tree_files(root) if files is None else files:
        found = _file_digest(path)
        digest.update(os.path.relpath(path, root).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(found[1] if found else b"?")
    return digest.hexdigest()


def _tree_stamp(root: Path, files: list[str]) -> str:
    """sha256 over every file's path, size, times and inode: writing a file changes
    its ctime (which no one can set), so an unchanged stamp means unchanged bytes."""
    rows = []
    for path in files:  # (the walk's paths are ``root`` joined with relative ones)
        try:
            st = os.stat(path)
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        except OSError:
            stamp = None
        rows.append((path, stamp))
    return hashlib.sha256(repr((str(root), rows)).encode("utf-8", "surrogateescape")).hexdigest()


@cache
def installed_fingerprint() -> str:
    """What a process judges with (the package's files, every profile): read once."""
    return code_fingerprint() + profiles_fingerprint()


def profiles_fingerprint() -> str:
    """Every engine's profiles, wherever its ``profile_dir`` is."""
    digest = hashlib.sha256()
    for engine in profiles.engines():
        digest.update(f"{engine}\0{_tree_digest(profiles.folder(engine))}\0".encode())
    digest.update(profile_store.fingerprint().encode())  # profiles built from images
    return digest.hexdigest()


def code_fingerprint() -> str:
    """Every file of the installed package: an edited rule or a rebuilt profile invalidates.
    Hashing its bytes (5.6 MB) is most of a cached run's key cost, so the digest is kept in
    the cache folder (``code.json``) under the stamp of the package's files (``_tree_stamp``)
    and computed again only when the stamp changes."""
    files = _tree_files(_PACKAGE)
    stamp = _tree_stamp(_PACKAGE, files)
    memo = cache_dir() / "code.json"
    data = read_cache_file(memo, 4096)
    try:
        kept = json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        kept = None
    if (
        isinstance(kept, dict)
        and kept.get("format") == CACHE_FORMAT
        and kept.get("stamp") == stamp
        and isinstance(kept.get("digest"), str)
    ):
        return kept["digest"]
    digest = _tree_digest(_PACKAGE, files)
    doc = {"format": CACHE_FORMAT, "stamp": stamp, "digest": digest}
    _write_atomic(memo, json.dumps(doc).encode())
    return digest


def config_fingerprint(config: Any) -> str:
    """The config's effective settings (not its file's bytes: a comment changes nothing)."""
    if config is None:
        return ""
    if dataclasses.is_dataclass(config):
        items = [(f.name, getattr(config, f.name)) for f in dataclasses.fields(config)]
        return repr([(k, str(v) if isinstance(v, Path) else v) for k, v in items])
    return repr(config)


def key_for(path: str, kind: str, options: Any) -> str | None:
    """The key of one unit's result (see the module doc), or None when it is not cached.
    The other files the result depends on are checked on load (``unchanged``)."""
    opts = (
        options.image,
        options.engine,
        options.gpu,
        options.target_version,
        options.works_on,
        getattr(options, "cap_guesses", True),
        getattr(options, "errors_only", False),
    )
    digest = hashlib.sha256()
    digest.update(
        repr(
            (
                CACHE_FORMAT,
                __version__,
                installed_fingerprint(),
                kind,
                # the path as given, and the working directory it is relative to: the
                # result's paths are spelled from it (a hit from another folder would
                # replay paths relative to the first one)
                path,
                "" if os.path.isabs(path) else os.getcwd(),
                opts,
                config_fingerprint(options.config),
            )
        ).encode("utf-8", "surrogateescape")
    )
    if os.path.isfile(path):
        found = _file_digest(path)
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
        if path == WORKING_DIRECTORY:  # a relative path was read: where from matters
            out.append((path, os.getcwd()))
            continue
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


def _listing_digest(path: str) -> str | None:
    """A directory's names, hashed once while the directory is unchanged (every recipe of a
    checkout lists its strategies)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _DIGESTS.get_or(("listing", path, st.st_mtime_ns, st.st_ino), lambda: _listing_of(path))


def _listing_of(path: str) -> str | None:
    try:
        listing = "\0".join(sorted(os.listdir(path)))
    except OSError:
        return None
    return "d" + hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest()


def _file_digest(path: str) -> tuple[int, bytes] | None:
    """(size, sha256) of a regular file, hashed once while its size and times stay the same
    (recipes share their strategy files)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    return _DIGESTS.get_or(("file", path, *stamp), lambda: _digest_of(path))


# digests of files and folder listings by path and stat (recipes share strategy files; every
# recipe of a checkout lists its strategies): an entry is a function of its key
_DIGESTS = Lru(8192)


def _digest_of(path: str) -> tuple[int, bytes] | None:
    data = _read_regular(path, MAX_DEP_BYTES)
    return None if data is None else (len(data), hashlib.sha256(data).digest())


def forget_digests() -> None:
    """Drop the digests kept for files (``--fix`` wrote them: a re-check reads them afresh)."""
    _DIGESTS.clear()


def read_cache_file(path: Path, limit: int) -> bytes | None:
    """The bytes of a file in the cache folder: a regular file (never a symlink, FIFO or
    device, nor in a sub-folder that is a symlink) of at most ``limit`` bytes; None for
    anything else. Every cache file is read through here (entries, launches, ``code.json``,
    the ``--online`` answers)."""
    if _linked_folder(Path(path).parent):
        return None
    return _read_regular(path, limit, follow=False)


def _linked_folder(folder: Path) -> bool:
    """Whether a sub-folder of the cache folder is a symlink (planted: it would lead reads
    and writes elsewhere); the cache folder itself may be one."""
    if folder == cache_dir():
        return False
    try:
        return stat.S_ISLNK(os.lstat(folder).st_mode)
    except OSError:
        return False


def write_cache_file(target: Path, data: bytes) -> bool:
    """Write a file of the cache folder atomically: an exclusive new temporary file (never
    following a symlink planted at its name), then renamed over ``target``."""
    return _write_atomic(target, data)


def _read_regular(path: str | Path, limit: int, *, follow: bool = True) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes; None for anything else (a FIFO
    or device is never waited on, a symlink is not followed unless ``follow``)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _entry_path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.json"


def _launches_path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.launches"


def _read_json(path: Path, key: str) -> dict | None:
    """An entry file's document when it is one of this format and key, else None. The
    collector is paused while parsing: JSON builds no cycles, and a large entry would
    otherwise trigger collections of everything allocated so far."""
    data = read_cache_file(path, MAX_ENTRY_BYTES)
    if data is None:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        entry = json.loads(data)
    except (ValueError, RecursionError):
        return None
    finally:
        if enabled:
            gc.enable()
    if (
        not isinstance(entry, dict)
        or entry.get("format") != CACHE_FORMAT
        or entry.get("key") != key
    ):
        return None
    return entry


def load(key: str, result_type: type, *, launches: bool = False) -> Any | None:
    """The result (a ``result_type``: ``unit.FileResult``) stored under ``key``, else None
    (the caller checks ``unchanged``). Its launches are read with it when ``launches`` (a
    missing or bad launches file is then a miss), else when first listed
    (``FileResult.all_launches``)."""
    if not _is_key(key):
        return None
    entry = _read_json(_entry_path(key), key)
    if entry is None:
        return None
    try:
        result = decode(entry.get("result"), result_type)
    except (CodecError, RecursionError):
        return None
    if not isinstance(result, result_type) or result.launches is not None or result.blob:
        return None
    result.launches_key = key
    if launches:
        result.launch_lines = load_launch_lines(key)
        if result.launch_lines is None:
            return None
    return result


def load_launch_lines(key: str) -> list[str] | None:
    """The launch summaries stored under ``key``, one line each as the JSON report writes
    them (``json_out.encode_item``), after a header line ``{format, key, count, sha256}``
    of the lines; None when the file is missing or does not match its header. Each line is
    parsed (a repeated key or anything but a launch summary is a miss) and written again by
    ``encode_item``: nothing of the file reaches a report as it was read."""
    if not _is_key(key):
        return None
    data = read_cache_file(_launches_path(key), MAX_ENTRY_BYTES)
    if data is None:
        return None
    head, _, body = data.partition(b"\n")
    try:
        header = json.loads(head)
        text = body.decode("utf-8")
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(header, dict)
        or header.get("format") != CACHE_FORMAT
        or header.get("key") != key
        or header.get("sha256") != hashlib.sha256(body).hexdigest()
    ):
        return None
    lines = text.split("\n") if text else []
    if header.get("count") != len(lines):
        return None
    out = []
    for line in lines:
        summary = _parse_unique(line)
        if not _is_summary(summary):
            return None
        out.append(encode_item(summary))
    return out


class _RepeatedKey(ValueError):
    pass


def _unique_object(pairs: list[tuple[str, Any]]) -> dict:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _RepeatedKey("a key is repeated")
    return found


def _parse_unique(text: str | bytes) -> Any:
    """JSON whose objects repeat no key (a forged ``errors`` after a true one), else None."""
    try:
        return json.loads(text, object_pairs_hook=_unique_object)
    except (ValueError, RecursionError):
        return None


def launch_reports(lines: list[str]) -> list | None:
    """Launch reports from stored launch lines (parsed: for callers that read the
    summaries); None when one is not a launch summary."""
    out = []
    for line in lines:
        summary = _parse_unique(line)
        if not _is_summary(summary):
            return None
        judged, errors = summary["judged_against"], summary["errors"]
        out.append(LaunchReport(None, judged, errors, summary.get("works_on"), summary))
    return out


def _is_summary(summary: Any) -> bool:
    """The fields of a launch summary that ``LaunchReport`` keeps have their types."""
    if not isinstance(summary, dict):
        return False
    judged, errors = summary.get("judged_against"), summary.get("errors")
    works = summary.get("works_on", {})
    return (
        isinstance(judged, list)
        and all(isinstance(j, str) for j in judged)
        and type(errors) is int
        and isinstance(works, dict)
        and all(v is None or type(v) in (str, int) for v in works.values())
    )


def store(key: str, value: Any) -> None:
    """Keep ``value`` (a FileResult with its ``stamps``) under ``key``, atomically: its
    launches (their summaries, as the JSON report writes them) in a file of their own,
    written first."""
    if not _is_key(key):
        return
    try:
        lines = [encode_item(lr.summary) for lr in value.all_launches()]
        body = "\n".join(lines).encode("utf-8")
        value = dataclasses.replace(
            value, launches=None, blob=None, launches_key=None, launch_lines=None
        )
        head = {"format": CACHE_FORMAT, "key": key}
        text = json.dumps(
            {**head, "result": encode(value, type(value))},
            ensure_ascii=True,
            separators=(",", ":"),
        )
    except (CodecError, TypeError, ValueError, RecursionError):
        return  # not representable: not cached
    header = {**head, "count": len(lines), "sha256": hashlib.sha256(body).hexdigest()}
    if _write_atomic(_launches_path(key), json.dumps(header).encode() + b"\n" + body):
        _write_atomic(_entry_path(key), text.encode("ascii"))


def _write_atomic(target: Path, data: bytes) -> bool:
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if _linked_folder(target.parent):
            return False
        with os.fdopen(os.open(tmp, flags, 0o644), "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        return True
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False


def _is_key(key: str) -> bool:
    return len(key) == 64 and all(c in "0123456789abcdef" for c in key)
