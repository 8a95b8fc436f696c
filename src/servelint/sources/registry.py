"""The readers servelint knows, in the order they are asked (the first that claims a file
reads it). A new file kind is one package under ``sources/`` and one line here."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, Reader
from servelint.sources.compose import ComposeReader
from servelint.sources.helm import HelmReader
from servelint.sources.inferencex import InferenceXReader
from servelint.sources.kubernetes import KubernetesReader
from servelint.sources.markdown import MarkdownReader
from servelint.sources.recipe import RecipeReader
from servelint.sources.shell import ShellReader
from servelint.sources.skypilot import SkyPilotReader
from servelint.sources.srt_slurm import SrtSlurmReader
from servelint.sources.templates import TemplateReader
from servelint.sources.unread import UnreadReader

READERS: tuple[Reader, ...] = (
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
    UnreadReader(),  # last: what mentions an engine and no reader claims gets a note
)


def reader_for(path: Path, readers: tuple[Reader, ...] = READERS) -> Reader | None:
    """The reader of a file, or None (not a kind servelint reads, or a support file that is
    read only through the files that use it)."""
    if any(getattr(r, "support_file", None) and r.support_file(path) for r in readers):
        return None
    head = Head(path)
    return next((r for r in readers if r.claims(path, head)), None)


def reader_for_dir(path: Path, readers: tuple[Reader, ...] = READERS) -> Reader | None:
    """The reader that reads a whole directory as one (an InferenceX checkout), or None."""
    return next((r for r in readers if getattr(r, "claims_dir", None) and r.claims_dir(path)), None)


def by_name(name: str, readers: tuple[Reader, ...] = READERS) -> Reader:
    return next(r for r in readers if r.name == name)
