"""``servelint check -``: check text read from standard input.

The text is written to a temporary file named like ``--stdin-filename`` (its name and
suffix decide the file kind, as for a file on disk); findings then name the display
name (``--stdin-filename``, or ``-``), never the temporary file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TextIO

from servelint.model import Finding, Span

STDIN_PATH = "-"


class StdinFile:
    """A temporary copy of stdin; ``display`` is the name findings carry."""

    def __init__(self, stream: TextIO, filename: str | None) -> None:
        self.text = stream.read()
        self.display = filename or STDIN_PATH
        import tempfile  # (only when reading stdin: not on every check's start-up)

        self._dir = tempfile.mkdtemp(prefix="servelint-stdin-")
        name = PurePath(filename).name if filename else "stdin"
        # a recipe is recognised under a models/ folder (as in the recipes repository)
        parts = PurePath(filename).parts[:-1] if filename else ()
        folder = Path(self._dir, *[p for p in parts if p not in ("/", "..", ".")][-3:])
        folder.mkdir(parents=True, exist_ok=True)
        self.path = str(folder / name)
        Path(self.path).write_text(self.text, encoding="utf-8")

    def close(self) -> None:
        import shutil

        shutil.rmtree(self._dir, ignore_errors=True)

    def _span(self, span: Span) -> Span:
        return dataclasses.replace(span, path=self.display) if span.path == self.path else span

    def rename(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings with the temporary path replaced by the display name."""
        out = []
        for f in findings:
            f.span = self._span(f.span)
            f.related = [self._span(r) for r in f.related]
            out.append(f)
        return out

    def path_of(self, path: str) -> str:
        return self.display if path == self.path else path
