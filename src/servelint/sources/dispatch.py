"""The table of readers, in the order they are asked, and the look-ups over it.

``sources.registry`` fills the table with every reader servelint knows. Readers that hand
a part of their file to another file kind (the Markdown reader's fenced blocks, the option
file reader's launchers and guides) look it up here: they do not import the registry, which
imports them."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, Reader

READERS: list[Reader] = []  # filled by sources.registry


def register(reader: Reader, before: str | None = None) -> None:
    """Add (or replace, by name) a reader, before the one named ``before`` (else last)."""
    kept = [r for r in READERS if r.name != reader.name]
    at = next((i for i, r in enumerate(kept) if r.name == before), len(kept))
    READERS[:] = [*kept[:at], reader, *kept[at:]]


def unregister(name: str) -> None:
    READERS[:] = [r for r in READERS if r.name != name]


def block_reader(lang: str) -> Reader | None:
    """The reader of a Markdown fenced block in language ``lang`` (``block_langs``), or None."""
    return next((r for r in READERS if lang in getattr(r, "block_langs", ())), None)


def reader_for(path: Path, readers: tuple[Reader, ...] | None = None) -> Reader | None:
    """The reader of a file, or None (not a kind servelint reads, or a support file that is
    read only through the files that use it)."""
    readers = tuple(READERS) if readers is None else readers
    if any(getattr(r, "support_file", None) and r.support_file(path) for r in readers):
        return None
    head = Head(path)
    return next((r for r in readers if r.claims(path, head)), None)


def reader_for_dir(path: Path, readers: tuple[Reader, ...] | None = None) -> Reader | None:
    """The reader that reads a whole directory as one (an InferenceX checkout), or None."""
    readers = tuple(READERS) if readers is None else readers
    return next((r for r in readers if getattr(r, "claims_dir", None) and r.claims_dir(path)), None)


def by_name(name: str, readers: tuple[Reader, ...] | None = None) -> Reader:
    readers = tuple(READERS) if readers is None else readers
    return next(r for r in readers if r.name == name)
