"""What a rule is: metadata plus ``check(ctx) -> findings``. One rule per module.

A rule never parses files and never reads wheels: it reads one LaunchSpec and the
profile of the release it is judged against (both in ``CheckContext``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from servelint.model import Finding, LaunchSpec, Severity, Span
from servelint.profiles import Profile

DOCS_URL = "https://servelint.invalid/rules/{name}"  # placeholder until docs are published


@dataclass(slots=True)
class CheckContext:
    spec: LaunchSpec
    profile: Profile  # the release judged against (None only for release-independent rules)
    # facts about the release resolution (floating tag, floor, ...), set by the resolver
    how: str = ""  # e.g. "image tag v0.27.1", "min_vllm_version 0.26.0", "newest profile (latest)"
    floating: bool = False  # judged against a guess (latest/nightly/floor): lower confidence
    history: object | None = None  # servelint.engine.history.History for first/last-seen facts
    parsed: object | None = None  # servelint.engine.vllm_argv.ParseResult, computed once
    extra: dict = field(default_factory=dict)


class Rule(Protocol):
    CODE: str
    NAME: str
    SEVERITY: Severity
    FIX_SAFE: bool

    def check(self, ctx: CheckContext) -> Iterable[Finding]: ...


@dataclass(frozen=True, slots=True)
class RuleMeta:
    code: str
    name: str
    severity: Severity
    summary: str
    doc: str
    fix_safe: bool

    @property
    def url(self) -> str:
        return DOCS_URL.format(name=self.name)


def meta_of(module) -> RuleMeta:
    doc = inspect.getdoc(module) or ""
    return RuleMeta(
        code=module.CODE,
        name=module.NAME,
        severity=module.SEVERITY,
        summary=doc.splitlines()[0] if doc else module.NAME,
        doc=doc,
        fix_safe=getattr(module, "FIX_SAFE", False),
    )


def finding(module, ctx: CheckContext, span: Span, message: str, *, fix: str = "",
            severity: Severity | None = None, evidence: str = "",
            related: list[Span] | None = None) -> Finding:
    """Build a finding for ``module`` (a rule module) judged against ``ctx.profile``."""
    return Finding(
        rule=module.NAME,
        code=module.CODE,
        severity=severity or module.SEVERITY,
        message=message,
        span=span,
        engine=ctx.profile.engine if ctx.profile is not None else ctx.spec.engine,
        release=ctx.profile.version if ctx.profile is not None else "",
        renderings=[ctx.spec.rendering] if ctx.spec.rendering else [],
        fix=fix,
        related=related or [],
        evidence=evidence,
    )


def iter_none() -> Iterator[Finding]:
    return iter(())
