"""The readers servelint knows, in the order they are asked (the first that claims a file
reads it). A new file kind is one package under ``sources/`` and one line here (or, for a
plug-in or a test, ``register(reader)``).

A reader that also reads fenced blocks of a Markdown guide names their languages in
``block_langs`` and gives ``block_records(path, text, first_line) -> list[CommandRecord]``
(spans in document lines, block columns); the Markdown reader assembles them as its own
(``block_reader``)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, Reader
from servelint.sources.compose import ComposeReader
from servelint.sources.helm import HelmReader
from servelint.sources.inferencex import InferenceXReader
from servelint.sources.kubernetes import KubernetesReader
from servelint.sources.markdown import MarkdownReader
from servelint.sources.option_file import OptionFileReader
from servelint.sources.recipe import RecipeReader
from servelint.sources.shell import ShellReader
from servelint.sources.skypilot import SkyPilotReader
from servelint.sources.srt_slurm import SrtSlurmReader
from servelint.sources.templates import TemplateReader
from servelint.sources.unread import UnreadReader

READERS: list[Reader] = [
    InferenceXReader(),
    KubernetesReader(),
    HelmReader(),
    ComposeReader(),
    SkyPilotReader(),
    RecipeReader(),
    SrtSlurmReader(),
    ShellReader(),
    MarkdownReader(),
    TemplateReader(),
    OptionFileReader(),  # a YAML file no other reader took, told by its keys
    UnreadReader(),  # last: what mentions an engine and no reader claims gets a note
]


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
