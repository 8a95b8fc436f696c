"""Golden cases per rule: tests/cases/rules/<rule-name>/<case>.(sh|yaml) + <case>.expected.

A case file's first line may carry options: ``# servelint-test: engine=vllm==0.21.0 gpu=h200
image=vllm/vllm-openai:v0.21.0``. ``<case>.expected`` lists the findings *of that rule*
as ``LINE:COLUMN SEVERITY`` (one per line; an empty file means none). Other rules'
findings are not compared here: each rule has its own cases.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from servelint import profiles
from servelint.check import Options, check_paths

CASES = Path(__file__).parent / "cases" / "rules"
HEADER = re.compile(r"servelint-test:\s*(.*)")


def _cases() -> list[Path]:
    return sorted(p for p in CASES.glob("*/*") if p.suffix in {".sh", ".yaml", ".md"})


def _options(path: Path) -> Options:
    first = path.read_text(encoding="utf-8").splitlines()[:1]
    opts: dict[str, str] = {}
    if first:
        m = HEADER.search(first[0])
        if m:
            opts = dict(kv.split("=", 1) for kv in m.group(1).split())
    return Options(image=opts.get("image"), engine=opts.get("engine"), gpu=opts.get("gpu"),
                   target_version=opts.get("target"), no_ignores=True)


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rule_case(case: Path) -> None:
    if not profiles.available("vllm"):
        pytest.skip("no committed vLLM profiles")
    rule = case.parent.name
    expected_file = case.with_suffix(".expected")
    expected = sorted(line.strip() for line in expected_file.read_text().splitlines()
                      if line.strip() and not line.startswith("#"))
    report = check_paths([str(case)], _options(case))
    got = sorted(f"{f.span.line}:{f.span.column} {f.severity.label}"
                 for f in report.findings if f.rule == rule)
    detail = "\n".join(f"{f.span.line}:{f.span.column} {f.rule} {f.message}"
                       for f in report.findings)
    assert got == expected, f"findings of {rule}:\n{detail}"
