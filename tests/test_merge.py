"""Findings of many renderings of one place merge into one listing each rendering once."""

from __future__ import annotations

from servelint.model import Finding, Severity, Span
from servelint.pipeline.merge import merge


def _finding(
    renderings: list[str], severity: Severity = Severity.WARNING, line: int = 3
) -> Finding:
    return Finding(
        "flag-unknown",
        "SL101",
        severity,
        "m",
        Span("r.yaml", line, 1),
        release="0.33.0",
        renderings=renderings,
    )


def test_renderings_listed_once_in_first_seen_order_with_the_worst_severity() -> None:
    out = merge(
        [
            _finding(["a", "b"]),
            _finding(["b", "c", "a"], Severity.ERROR),
            _finding(["d", "c"]),
            _finding(["x"], line=1),
        ]
    )
    assert [(f.span.line, f.renderings, f.severity) for f in out] == [
        (1, ["x"], Severity.WARNING),
        (3, ["a", "b", "c", "d"], Severity.ERROR),
    ]
