"""A template file -> the readers of the kind it renders to (see the package doc)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.helm.values import charts_of, read_values
from servelint.sources.kubernetes import is_manifest
from servelint.sources.kubernetes.reader import read_manifests, read_text
from servelint.sources.shell.script import read_script
from servelint.sources.templates.text import Prepared, prepare
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


def each_branch(text: str, read: Callable[[Prepared], ReadResult]) -> ReadResult:
    """``read`` of the template's rendering where every condition holds and, when it has
    ``else`` branches, of the one where they are taken (``prepare``): each branch's words
    are judged in a rendering of their own, never beside their alternative's. A launch the
    second rendering makes as the first did is dropped; its notes merge."""
    first = read(prepare(text))
    other = prepare(text, other_branches=True)
    if not other.branches:
        return first
    second = read(other)
    seen = {_key(s) for s in first.specs}
    for spec in second.specs:
        if _key(spec) not in seen:
            spec.rendering = (spec.rendering + " " if spec.rendering else "") + \
                "(else branches)"
            first.specs.append(spec)
    known = {(p.span, p.message) for p in first.problems}
    first.problems.extend(p for p in second.problems if (p.span, p.message) not in known)
    return first


def _key(spec) -> tuple:  # noqa: ANN001
    return (spec.anchor, spec.entrypoint, tuple(t.text for t in spec.argv),
            tuple((e.name, e.value) for e in spec.env))


def templated(result: ReadResult) -> ReadResult:
    """A template that is no YAML once its expressions are placeholders says so as a note:
    what the template renders may well be YAML, and its expressions are never an error."""
    for problem in result.problems:
        if problem.kind == "read-error" and problem.message.startswith("malformed YAML"):
            problem.message = ("the template is not YAML once its expressions are read as "
                               f"placeholders ({problem.message}); what it renders is not "
                               "checked")
            problem.kind = "unsupported"
    return result
