"""The readers servelint knows, in the order they are asked (the first that claims a file
reads it). A new file kind is one package under ``sources/`` and one line here (or, for a
plug-in or a test, ``register(reader)``).

A reader that also reads fenced blocks of a Markdown guide names their languages in
``block_langs`` and gives ``block_records(path, text, first_line) -> list[CommandRecord]``
(spans in document lines, block columns); the Markdown reader assembles them as its own
(``block_reader``). The table and its look-ups are ``sources.dispatch``'s."""

from __future__ import annotations

from servelint.sources.compose import ComposeReader
from servelint.sources.dispatch import (
    READERS,
    block_reader,
    by_name,
    reader_for,
    reader_for_dir,
    register,
    unregister,
)
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

READERS[:] = [
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

__all__ = [
    "READERS", "block_reader", "by_name", "reader_for", "reader_for_dir", "register", "unregister",
]
