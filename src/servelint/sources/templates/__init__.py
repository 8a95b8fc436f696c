"""Jinja and Go templates of deployment files and scripts (``.j2``, ``.jinja``, ``.tpl``,
``.gotmpl``): the expressions become placeholders (``text.prepare``) and the text is read
as the kind it renders to (a manifest, a chart's values file, a shell script), or gets one
line saying what it is."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_template_file = on_first_use("servelint.sources.templates.reader", "read_template_file")

SUFFIXES = frozenset({".j2", ".jinja", ".jinja2", ".tpl", ".gotmpl"})


class TemplateReader:
    name = "template"

    def claims(self, path: Path, head: Head) -> bool:
        return path.suffix.lower() in SUFFIXES

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_template_file(path)
