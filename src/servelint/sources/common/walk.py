"""Walking a folder tree without recursion: any depth, no symlink loops, no lost run.

``walk(root)`` yields the files under ``root`` in a stable order (a folder's files, sorted,
before its subfolders, sorted, depth first) and, as ``Skipped`` items, the folders it could
not walk: one it may not list, or one deeper than ``MAX_DEPTH`` levels (the walk stops there
and says so). Symlinks to folders are not followed (as ``os.walk`` does by default); each
folder is entered once even when bind mounts make a loop.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Container, Iterator
from dataclasses import dataclass

MAX_DEPTH = 256  # folder levels below a checked root


@dataclass(slots=True, eq=False)
class Skipped:
    """A folder the walk did not enter, and why (``cannot list folder: …`` / ``deeper …``)."""

    path: str
    reason: str


def walk(root: str, skip: Container[str] = ()) -> Iterator[str | Skipped]:
    """The files under ``root`` (paths as ``root`` joined with names) and skipped folders."""
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        if depth > MAX_DEPTH:
            yield Skipped(
                folder,
                f"folder tree deeper than {MAX_DEPTH} levels: nothing below "
                "this folder was checked",
            )
            continue
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
            identity = os.stat(folder)
        except OSError as exc:
            yield Skipped(folder, f"cannot list folder: {exc.strerror or exc}")
            continue
        key = (identity.st_dev, identity.st_ino)
        if key in seen:
            continue
        seen.add(key)
        subfolders = []
        for entry in entries:
            if _is_real_dir(entry):
                if entry.name not in skip:
                    subfolders.append(entry.path)
            else:
                yield entry.path
        stack.extend((sub, depth + 1) for sub in reversed(subfolders))


def _is_real_dir(entry: os.DirEntry) -> bool:
    """A folder, not a symlink to one (an entry that cannot be stat'ed is a file to report)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def path_kind(path: str) -> str:
    """``dir`` | ``file`` (anything else that exists) | ``missing`` | ``unreadable`` (stat
    failed for another reason, e.g. a parent folder that may not be searched)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "file" if os.path.islink(path) else "missing"
    except NotADirectoryError:
        return "missing"
    except OSError:
        return "file" if os.path.islink(path) else "unreadable"
    return "dir" if stat.S_ISDIR(st.st_mode) else "file"
