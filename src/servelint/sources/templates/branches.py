"""The renderings of a template a reader judges: each branch of its conditions in a rendering
of its own (``each_branch``), and a template that is no YAML once read said so as a note
(``templated``). The template reader and the Helm reader share them."""

from __future__ import annotations

from collections.abc import Callable

from servelint.sources.base import ReadResult
from servelint.sources.templates.text import Prepared, prepare


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
