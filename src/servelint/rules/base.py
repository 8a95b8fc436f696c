"""What a rule reads (``CheckContext``), its scope, and the helper that builds findings.

One rule per module (``servelint.rules.registry`` lists them and is the only catalogue).

A rule never parses files and never reads wheels: it reads one LaunchSpec and the
profile of the release it is judged against (both in ``CheckContext``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from servelint.model import Finding, LaunchSpec, Severity, Span
from servelint.profiles import Profile


@dataclass(slots=True, eq=False)
class CheckContext:
    """What a rule's ``check`` is given: one launch, the release judged and the facts about it
    (identity equality)."""

    spec: LaunchSpec
    profile: Profile  # the release judged (None only for release-independent rules)
    # facts about the release resolution (floating tag, floor, ...), set by the resolver
    how: str = ""  # "image tag v0.27.1", "min_vllm_version 0.26.0", "newest profile (latest)"
    floating: bool = False  # judged against a guess (latest/nightly/floor)
    history: object | None = None  # servelint.engines.history.History: first/last-seen facts
    parsed: object | None = None  # servelint.engines.vllm.argv.ParseResult, computed once
    extra: dict = field(default_factory=dict)


class Scope(StrEnum):
    """What a rule reads, which decides how often the pipeline runs it."""

    ARGV = "argv"  # per release judged; only the argv texts, symbolic marks, profile, history
    LAUNCH = "launch"  # per release judged; the whole launch (env, image, spans, ...)
    NOTES = "notes"  # once per launch, independent of the release judged
    FILE = "file"  # emitted by the pipeline (reader problems, ignore comments): no check()


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
