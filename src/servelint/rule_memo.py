"""Run a rule whose findings depend only on the release and the argv, once per parse.

A corpus has far fewer distinct argvs than launches (the recipes corpus: 11,375 argvs for
33,875 launches). A rule of scope ``Scope.ARGV`` (``servelint.rules.registry``) reads nothing
of the launch but its argv (texts, which tokens are symbolic), the release's profile and the
history; its
findings are then the same for every launch with that argv, apart from where they point.

So the rule runs once per parse on a *shadow* launch whose tokens carry placeholder spans
that name their argv index; each finding becomes a template, instantiated for each launch
with that launch's spans and rendering. A finding whose span is not a placeholder (the rule
read something else after all) makes the rule run on every launch of that parse instead. A
fix's edits are templated the same way: each edit's span must be a token's (placeholder)
span, narrowed by the edit's ``old`` text, never a column computed from it.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any

from servelint.model import Edit, Finding, Fix, LaunchSpec, Span, Token
from servelint.rules.base import CheckContext

_SHADOW = "\0argv"  # path of a placeholder span; its line is the argv index (0: the anchor)


@dataclass(frozen=True, slots=True)
class _Template:
    finding: Finding  # span and related spans are placeholders; renderings empty
    index: int  # argv index of the span (-1: the launch's anchor)
    related: tuple[int, ...]
    edits: tuple[int, ...]  # argv index of each autofix edit's span


def run(rule: Any, ctx: CheckContext) -> list[Finding]:
    parsed = ctx.parsed
    memo = parsed.memo if parsed is not None else None
    if memo is None:
        return list(rule.check(ctx))
    key = ("rule", rule.code)
    templates = memo.get(key)
    if templates is None:
        templates = memo[key] = _templates(rule, ctx)
    if templates is False:  # not expressible as templates: run it on this launch
        return list(rule.check(ctx))
    return [_instantiate(t, ctx.spec) for t in templates]


@functools.cache
def _shadow_span(index: int) -> Span:
    return Span(_SHADOW, index + 2, 1)


def _shadow(ctx: CheckContext) -> CheckContext:
    """The launch with placeholder spans (one per parse: the argv texts are the same)."""
    spec = ctx.spec
    shadow = copy.copy(spec)
    shadow.argv = [Token(t.text, _shadow_span(i), t.symbolic) for i, t in enumerate(spec.argv)]
    shadow.anchor = _shadow_span(-1)
    shadow.rendering = ""
    return CheckContext(spec=shadow, profile=ctx.profile, how=ctx.how, floating=ctx.floating,
                        history=ctx.history, parsed=ctx.parsed, extra=dict(ctx.extra))


def _templates(rule: Any, ctx: CheckContext) -> list[_Template] | bool:
    memo = ctx.parsed.memo  # type: ignore[union-attr]
    sctx = memo.get("shadow")
    if sctx is None:
        sctx = memo["shadow"] = _shadow(ctx)
    out: list[_Template] = []
    for f in rule.check(sctx):
        edits = f.autofix.edits if f.autofix is not None else ()
        spans = [f.span, *f.related, *(e.span for e in edits)]
        if any(s.path != _SHADOW for s in spans):
            return False
        out.append(_Template(f, f.span.line - 2, tuple(s.line - 2 for s in f.related),
                             tuple(e.span.line - 2 for e in edits)))
    return out


def _span(spec: LaunchSpec, index: int) -> Span:
    if 0 <= index < len(spec.argv) and spec.argv[index].span is not None:
        return spec.argv[index].span  # type: ignore[return-value]
    return spec.anchor


def _instantiate(t: _Template, spec: LaunchSpec) -> Finding:
    f = t.finding
    return Finding(rule=f.rule, code=f.code, severity=f.severity, message=f.message,
                   span=_span(spec, t.index), engine=f.engine, release=f.release,
                   renderings=[spec.rendering] if spec.rendering else [], fix=f.fix,
                   related=[_span(spec, i) for i in t.related], evidence=f.evidence,
                   autofix=_fix(t, spec))


def _fix(t: _Template, spec: LaunchSpec) -> Fix | None:
    fix = t.finding.autofix
    if fix is None:
        return None
    pairs = zip(t.edits, fix.edits, strict=True)
    edits = tuple(Edit(_span(spec, i), e.replacement, e.old) for i, e in pairs)
    return Fix(edits, fix.safety, fix.description)
