"""Golden cases per rule: tests/cases/rules/<rule-name>/<case>.(sh|yaml|md) + <case>.expected.

A case file's first line may carry options: ``# servelint-test: engine=vllm==0.21.0 gpu=h200
image=vllm/vllm-openai:v0.21.0 ignores=on`` (inline ignores are off unless ``ignores=on``).
``<case>.expected`` holds, after its ``#`` comment lines, one full line per finding *of that
rule*, as actionlint's ``.out`` files do::

    bad.sh:2:26: warning SL103 flag-abbreviated: "--max-model" is accepted by … [vllm 0.21.0]

(path:line:column: severity code name: message [engine release]); an empty body means
none. Any change of position, severity or wording fails the test. Other rules' findings
are not compared: each rule has its own cases. ``pytest tests/test_rule_cases.py --update``
rewrites the files from the current output (then review the diff).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from servelint import profiles
from servelint.check import Options, check_paths
from servelint.model import Finding
from servelint.rules import registry

CASES = Path(__file__).parent / "cases" / "rules"
HEADER = re.compile(r"servelint-test:\s*(.*)")
SUFFIXES = {".sh", ".yaml", ".md"}
EXPECTED_HEADER = "# path:line:column: severity code name: message [engine release] (this rule)"


def _cases() -> list[Path]:
    return sorted(p for p in CASES.glob("*/*") if p.suffix in SUFFIXES)


def case_options(path: Path) -> Options:
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
    opts: dict[str, str] = {}
    if first:
        m = HEADER.search(first[0])
        if m:
            opts = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
    return Options(
        image=opts.get("image"),
        engine=opts.get("engine"),
        gpu=opts.get("gpu"),
        target_version=opts.get("target"),
        no_ignores=opts.get("ignores") != "on",
        use_cache=False,
    )


def golden_line(finding: Finding, case: Path) -> str:
    span = finding.span
    where = Path(span.path).name if Path(span.path).parent == case.parent else span.path
    release = f" [{finding.engine} {finding.release}]" if finding.release else ""
    return (
        f"{where}:{span.line}:{span.column}: {finding.severity.label} {finding.code} "
        f"{finding.rule}: {finding.message}{release}"
    )


def read_expected(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rule_case(case: Path, update_golden: bool) -> None:
    if not profiles.available("vllm"):
        pytest.skip("no committed vLLM profiles")
    rule = case.parent.name
    expected_file = case.with_suffix(".expected")
    report = check_paths([str(case)], case_options(case))
    got = [golden_line(f, case) for f in report.findings if f.rule == rule]
    if update_golden:
        expected_file.write_text("\n".join([EXPECTED_HEADER, *got]) + "\n", encoding="utf-8")
        return
    detail = "\n".join(golden_line(f, case) for f in report.findings)
    assert got == read_expected(expected_file), f"findings of {rule} (all findings):\n{detail}"


def test_every_rule_has_a_bad_and_a_good_case() -> None:
    names = {rule.name for rule in registry.rules()}
    dirs = {p.name for p in CASES.iterdir() if p.is_dir()}
    assert dirs <= names, f"case folders naming no rule: {sorted(dirs - names)}"
    for name in sorted(names):
        folder = CASES / name
        assert folder.is_dir(), f"rule {name} has no cases under {CASES.name}/{name}"
        with_findings = [p for p in folder.glob("*.expected") if read_expected(p)]
        without = [p for p in folder.glob("*.expected") if not read_expected(p)]
        assert with_findings and without, f"rule {name} needs a bad and a good case"
