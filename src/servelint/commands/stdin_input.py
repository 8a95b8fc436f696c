"""``servelint check -``: check text read from standard input.

The text is written to a temporary file named like ``--stdin-filename`` (its name and
suffix decide the file kind, as for a file on disk); findings then name the display
name (``--stdin-filename``, or ``-``), never the temporary file. Without
``--stdin-filename`` the kind is told by the content (``kind_by_content``: a recipe, other
YAML, Markdown, a shell launcher); text that tells none is refused (``UnknownKind``: exit 2
asking for the name), never checked as nothing.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TextIO

import yaml

from servelint.engines.registry import engines
from servelint.model import Finding, Span
from servelint.sources.common.yaml_bounded import safe_load_bounded

STDIN_PATH = "-"
# the folder of standard input's text, in messages (it has none the user could look in)
STDIN_FOLDER = "<standard input's folder>"


class UnknownKind(ValueError):
    """Standard input without ``--stdin-filename`` whose content names no file kind."""


def kind_by_content(text: str) -> str | None:
    """A file name whose kind is that of ``text`` (read as data, never run), or None."""
    body = text.lstrip("\ufeff")
    if not body.strip():
        return None
    if body.startswith("#!"):
        return "stdin.sh"
    try:  # a mapping first: a recipe's guide holds Markdown fences
        data = safe_load_bounded(body)
    except (yaml.YAMLError, ValueError, RecursionError):  # (ValueError: over the budget)
        data = None
    if isinstance(data, dict):
        model = data.get("model")
        return "models/stdin/stdin.yaml" if isinstance(model, dict) else "stdin.yaml"
    if re.search(r"^[ \t]*(```|~~~)", body, re.M) or re.match(r"#{1,6} ", body):
        return "stdin.md"

    words = {w for engine in engines() for w in engine.shell_words}
    if any(re.search(rf"(?<![\w.-]){re.escape(w)}(?![\w-])", body) for w in words):
        return "stdin.sh"
    return None


class StdinFile:
    """A temporary copy of stdin; ``display`` is the name findings carry."""

    def __init__(self, stream: TextIO, filename: str | None) -> None:
        self.text = stream.read()
        self.display = filename or STDIN_PATH
        guessed = filename or kind_by_content(self.text)
        if guessed is None:
            raise UnknownKind(
                "cannot tell what kind of file the text on standard input is (a recipe, a "
                "launcher script, a master config, Markdown): name it with --stdin-filename, "
                "e.g. --stdin-filename models/org/model.yaml or run.sh")
        filename = guessed
        self._dir = tempfile.mkdtemp(prefix="servelint-stdin-")
        name = PurePath(filename).name
        # a recipe is recognised under a models/ folder (as in the recipes repository)
        parts = PurePath(filename).parts[:-1]
        folder = Path(self._dir, *[p for p in parts if p not in ("/", "..", ".")][-3:])
        folder.mkdir(parents=True, exist_ok=True)
        self.path = str(folder / name)
        self._folder = str(folder)
        Path(self.path).write_text(self.text, encoding="utf-8")

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def _span(self, span: Span) -> Span:
        return dataclasses.replace(span, path=self.display) if span.path == self.path else span

    def rename(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings with the temporary path replaced by the display name, in their
        spans and in their words (a sourced helper "not found inside /tmp/servelint-stdin-…"
        named a folder the user never saw)."""
        out = []
        for f in findings:
            f.span = self._span(f.span)
            f.related = [self._span(r) for r in f.related]
            f.message = self._words(f.message)
            f.fix = self._words(f.fix)
            out.append(f)
        return out

    def _words(self, text: str) -> str:
        if not text or self._dir not in text:
            return text
        text = text.replace(self.path, self.display)
        return text.replace(self._folder, STDIN_FOLDER).replace(self._dir, STDIN_FOLDER)

    def path_of(self, path: str) -> str:
        return self.display if path == self.path else path
