"""A template file -> the readers of the kind it renders to (see the package doc)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.helm.values import charts_of, read_values
from servelint.sources.kubernetes import is_manifest
from servelint.sources.kubernetes.reader import read_manifests, read_text
from servelint.sources.shell.script import read_script
from servelint.sources.templates.branches import each_branch, templated
from servelint.sources.templates.text import prepare
from servelint.sources.unread import engine_words, what_it_is

_SHELL = {".sh", ".bash"}


def read_template_file(path: str) -> ReadResult:
    text, failed = read_text(path)
    if text is None:
        return failed
    prepared = prepare(text)
    inner = Path(Path(path).stem).suffix.lower()
    body = prepared.text
    if inner in _SHELL or body.lstrip().startswith("#!") and "sh" in body.split("\n", 1)[0]:
        found = read_script(path, text=body)
        return ReadResult(list(found.launches), list(found.problems))
    if is_manifest(body):
        return each_branch(text, lambda p: templated(read_manifests(
            path, p.text, "template", frozenset(p.unknown_lines))))
    if charts_of(body):
        return templated(read_values(path, body))
    m = engine_words().search(text)
    if m is None:
        return ReadResult()
    line = text.count("\n", 0, m.start()) + 1
    return ReadResult(problems=[ReadProblem(
        path, None, f"{what_it_is(Path(path), text)} mentions `{m.group(0)}` (line {line}) "
        "but renders to no kind servelint reads (a manifest, a chart's values file, a shell "
        "script); not checked", "unsupported")])
