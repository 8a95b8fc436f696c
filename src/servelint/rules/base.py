"""What a rule reads (``CheckContext``), its scope, and the helper that builds findings.

One rule per module (``servelint.rules.registry`` lists them and is the only catalogue).

A rule never parses files and never reads wheels: it reads one LaunchSpec and the
profile of the release it is judged against (both in ``CheckContext``).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum

from servelint.model import Finding, LaunchSpec, Severity, Span
from servelint.profiles import Profile


class CheckContext:
    """What a rule's ``check`` is given: one launch, the release judged and the facts about it
    (a plain slotted record: nothing compares, hashes or copies one)."""

    __slots__ = ("spec", "profile", "how", "floating", "history", "parsed", "extra")

    def __init__(
        self,
        spec: LaunchSpec,
        profile: Profile,
        how: str = "",
        floating: bool = False,
        history: object | None = None,
        parsed: object | None = None,
        extra: dict | None = None,
    ) -> None:
        self.spec = spec
        self.profile = profile  # the release judged (None only for release-independent rules)
        # facts about the release resolution (floating tag, floor, ...), set by the resolver
        self.how = how  # "image tag v0.27.1", "min_vllm_version 0.26.0", "newest profile (latest)"
        self.floating = floating  # judged against a guess (latest/nightly/floor)
        self.history = history  # servelint.engines.history.History for first/last-seen facts
        self.parsed = parsed  # servelint.engines.vllm.argv.ParseResult, computed once
        self.extra = {} if extra is None else extra


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
