"""Reader problems as findings."""

from __future__ import annotations

from typing import Any

from servelint.model import Finding, Severity, Span
from servelint.pipeline.problem_fixes import fix_for
from servelint.rules import argv_shape, entrypoint_shape
from servelint.rules import read_error as read_error_rule

PROBLEM_SEVERITY = {
    "read-error": Severity.ERROR,
    "parse-error": Severity.WARNING,
    "budget": Severity.WARNING,
    "unresolved": Severity.WARNING,
    "unsupported": Severity.INFO,
}


def problem_finding(problem: Any) -> Finding:
    """A reader problem as a finding: unreadable input is an error, gaps in what a reader
    could follow (a construct skipped, a sourced helper outside the checkout) say less."""
    span = problem.span or Span(problem.path, 1, 1)
    kind = getattr(problem, "kind", "read-error")
    if kind == "entrypoint-shape":
        fix = "drop the command words after the image, or set --entrypoint"
        return _rule_finding(entrypoint_shape, problem.message, span, fix)
    if kind == "argv-shape":
        return _rule_finding(argv_shape, problem.message, span, argv_shape.FIX_TEXT)
    severity = PROBLEM_SEVERITY.get(kind, Severity.WARNING)
    if getattr(problem, "subject", "") == "source":
        severity = Severity.INFO  # a sourced helper not followed: the launch is still read
    if getattr(problem, "subject", "") == "elsewhere":
        # a file the document reads from another checkout by design (an InferenceX entry's
        # CONFIG_FILE in the srt-slurm checkout): nothing to fix here, said once per entry
        severity = min(severity, Severity.INFO)
    return Finding(
        rule=read_error_rule.NAME,
        code=read_error_rule.CODE,
        severity=severity,
        message=problem.message,
        span=span,
        fix=fix_for(kind, problem.message, getattr(problem, "subject", "")),
    )


def _rule_finding(rule: Any, message: str, span: Span, fix: str) -> Finding:
    """A reader problem that one rule module owns, as that rule's finding."""
    return Finding(
        rule=rule.NAME,
        code=rule.CODE,
        severity=rule.SEVERITY,
        message=message,
        span=span,
        fix=fix,
    )
