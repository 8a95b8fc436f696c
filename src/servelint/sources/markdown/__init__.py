"""Markdown guides (``*.md``): the launch commands people copy from fenced code blocks."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_markdown = on_first_use("servelint.sources.markdown.reader", "read_markdown")


class MarkdownReader:
    name = "markdown"

    def claims(self, path: Path, head: Head) -> bool:
        return path.suffix.lower() in {".md", ".markdown"}

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        result = read_markdown(path)
        return ReadResult(list(result.launches), list(result.problems))
