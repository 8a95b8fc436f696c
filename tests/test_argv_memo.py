"""The argv memo: rules run once per argv verdict (``Scope.ARGV``) give exactly what running
them per launch gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelint.check import Options, check_paths
from servelint.model import Edit, Finding, Fix, FixSafety, Severity, Span
from servelint.pipeline import argv_memo
from servelint.rules import registry
from servelint.rules.base import Scope

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def _as_dicts(findings: list[Finding]) -> list[tuple]:
    return [(f.code, f.span, f.severity, f.message, f.fix, tuple(f.renderings), f.release,
             tuple(f.related), f.evidence) for f in findings]


def _run(paths: list[str], monkeypatch: pytest.MonkeyPatch | None) -> list[tuple]:
    if monkeypatch is not None:
        monkeypatch.setattr(argv_memo, "findings", lambda rule, ctx: list(rule.check(ctx)))
    report = check_paths(paths, Options(use_cache=False, jobs=1))
    return _as_dicts(report.findings)


def test_some_rules_are_memoised():
    assert registry.runnable(Scope.ARGV)


@pytest.mark.parametrize("paths", [
    [str(ROOT / "examples"), str(ROOT / "tests" / "cases" / "rules")],
    [str(CORPUS / "vllm-recipes" / "models" / "deepseek-ai")],
], ids=["examples-and-rule-cases", "deepseek-recipes"])
def test_memo_equals_per_launch(paths, monkeypatch):
    if not all(Path(p).exists() for p in paths):
        pytest.skip("corpus not beside the checkout")
    memoised = _run(paths, None)
    assert memoised, "the inputs must produce findings for the comparison to mean anything"
    assert memoised == _run(paths, monkeypatch)


class _OtherSpanRule:
    """Reads something besides the argv: its finding points at the launch's env."""

    code = "SL999"
    NAME = "test-other-span"
    SEVERITY = Severity.WARNING
    calls = 0

    @classmethod
    def check(cls, ctx):
        cls.calls += 1
        yield Finding(rule=cls.NAME, code=cls.code, severity=cls.SEVERITY, message="m",
                      span=Span("elsewhere", 3, 1))


def test_a_span_outside_the_argv_runs_the_rule_per_launch():
    from servelint.engines.lint_parse import LintParse
    from servelint.model import LaunchSpec, Token
    from servelint.rules.base import CheckContext

    parsed = LintParse()
    spec = LaunchSpec(engine="vllm", entrypoint="vllm serve", argv=[Token("m", Span("f", 1, 1))],
                      path="f", anchor=Span("f", 1, 1))
    ctx = CheckContext(spec=spec, profile=None, parsed=parsed)  # type: ignore[arg-type]
    first = argv_memo.findings(_OtherSpanRule, ctx)
    second = argv_memo.findings(_OtherSpanRule, ctx)
    assert [f.span for f in first + second] == [Span("elsewhere", 3, 1)] * 2
    assert _OtherSpanRule.calls == 3  # the shadow run, then once per launch


class _FixingRule:
    """An argv rule whose finding carries a fix on the token it reports."""

    code = "SL998"
    calls = 0

    @classmethod
    def check(cls, ctx):
        cls.calls += 1
        span = ctx.spec.argv[0].span
        yield Finding(rule="test-fixing", code=cls.code, severity=Severity.WARNING, message="m",
                      span=span, autofix=Fix((Edit(span, "--long", old="--l"),),
                                             FixSafety.SAFE, "write --long"))


def test_fix_edits_are_templated_on_the_launch_spans():
    from servelint.engines.lint_parse import LintParse
    from servelint.model import LaunchSpec, Token
    from servelint.rules.base import CheckContext

    parsed = LintParse()
    found = []
    for line in (1, 5):
        tok = Token("--l", Span("f", line, 3, line, 6))
        spec = LaunchSpec(engine="vllm", entrypoint="vllm serve", argv=[tok], path="f",
                          anchor=Span("f", line, 1))
        ctx = CheckContext(spec=spec, profile=None, parsed=parsed)  # type: ignore[arg-type]
        found += argv_memo.findings(_FixingRule, ctx)
    assert _FixingRule.calls == 1  # the shadow run only
    assert [f.autofix.edits for f in found] == [
        (Edit(Span("f", 1, 3, 1, 6), "--long", "--l"),),
        (Edit(Span("f", 5, 3, 5, 6), "--long", "--l"),)]
