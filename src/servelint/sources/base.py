"""The Reader interface: how a file kind turns files into launch specs.

A reader says which files it reads (``claims``) and reads one (``read``); it never computes
findings. What it returns, a ``ReadResult``, lists the launches, the problems met, and every
file it read (``deps``) so that a cached result is reused only while none of them changed.
Readers are listed, in order, in :mod:`servelint.sources.registry`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from servelint.model import LaunchSpec
from servelint.sources.common.problems import ReadProblem


@dataclass(slots=True, eq=False, repr=False)
class ReadResult:
    """What a reader found in one unit: its launches, its problems and the files it read."""

    specs: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)  # every file read, the file itself included
    # files whose launches this result already holds (launchers a benchmark config binds):
    # they are not checked again on their own
    bound: list[str] = field(default_factory=list)


@dataclass(slots=True, eq=False, repr=False)
class ReadContext:
    """What a reader may be told besides the path (nothing of the rules or the report); one
    per run (and one per worker process of a ``-j N`` run), handed to every read."""

    time_limit: float = 10.0  # wall-clock bound of one script's interpretation
    # checkout root -> (YAML file name -> the launchers and guides that mention it, whether
    # every one was indexed): each option file of a checkout asks the same question of the
    # same files (``sources.option_file.naming``). 100 option files beside 1,000 launchers:
    # 1.9 s with a scan per file, 0.9 s with this index (2-core machine).
    mentions: dict[str, tuple[dict[str, list[str]], bool]] = field(default_factory=dict)
    # checkout root -> its InferenceX plan and the files the plan read: each launcher script
    # of a checkout checked on its own is read with its part of the same plan (0.11 s each
    # on ../shared/corpus/inferencex; a walk of its benchmarks/ meets ~200 scripts)
    plans: dict[str, tuple[Any, list[str]]] = field(default_factory=dict)


class Head:
    """The first bytes of a file, read on first use (most files are told by their name)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._text: dict[int, str] = {}

    def text(self, size: int = 4096) -> str:
        if size not in self._text:
            self._text[size] = _read_head(self.path, size)
        return self._text[size]


def _read_head(path: Path, size: int) -> str:
    try:
        if not path.is_file():  # a FIFO would block: not classified by content
            return ""
        with open(path, "rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


class Reader(Protocol):
    """One file kind. ``claims`` must be cheap (name first, then ``head``); ``read`` never
    raises for bad input (a problem instead)."""

    name: str

    def claims(self, path: Path, head: Head) -> bool: ...

    def read(self, path: str, ctx: ReadContext) -> ReadResult: ...


@dataclass(slots=True, eq=False, repr=False)
class Expansion:
    """A unit split into parts read as separate jobs (an InferenceX checkout: one part per
    launcher script). Each part's read gives numbered slots; the unit's launches are the
    slots' in number order, whichever job read them."""

    problems: list[ReadProblem] = field(default_factory=list)  # of the unit as a whole
    parts: list[Any] = field(default_factory=list)  # each with ``path`` and ``weight``
    slots: int = 0


class ExpandingReader(Protocol):
    """A reader whose units are read in parts (``expand`` then ``read_part`` per part);
    ``expand`` gives None for a unit it reads whole after all (``read``)."""

    def expand(self, path: str, ctx: ReadContext) -> Expansion | None: ...

    def read_part(self, part: Any, ctx: ReadContext) -> list[tuple[int, ReadResult]]: ...


class DirectoryReader(Protocol):
    """A reader that also claims directories (a checkout read as one whole)."""

    def claims_dir(self, path: Path) -> bool: ...


class SupportFiles(Protocol):
    """A reader whose files come with support files read only through them (a recipe
    repository's taxonomy and strategies): those are never read on their own."""

    def support_file(self, path: Path) -> bool: ...


def on_first_use(module: str, name: str) -> Callable[..., Any]:
    """``module.name``, imported when first called: how a reader package names the module
    that parses its files. Telling a file's kind (``claims``) needs none of them, and a run
    answered from the disk cache reads no file: importing all twelve readers at start-up
    cost such a run 0.08 s of CPU (0.38 s -> 0.46 s on the recipes, #27). The one place
    reader modules load lazily; ``tools/arch_figures.py`` counts these as imports inside
    functions and follows them for cycles."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call
