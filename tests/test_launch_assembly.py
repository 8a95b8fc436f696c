"""One assembler for every file kind: a command is judged the same in a script and in a
Markdown guide (``tests/cases/launches/<case>.sh`` and ``<case>.md`` hold the same command
lines), and each case's findings are golden (``<case>.<suffix>.expected``, every finding at
warning or above plus the release notes, as full lines; ``--update`` rewrites them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_cases import EXPECTED_HEADER, golden_line, read_expected

from servelint.check import check_paths
from servelint.model import Severity
from servelint.sources.markdown.reader import read_markdown

CASES = Path(__file__).parent / "cases" / "launches"


def _findings(path: Path) -> list:
    report = check_paths([str(path)])
    return [
        f for f in report.findings
        if f.severity >= Severity.WARNING or f.rule == "release-unresolved"
    ]


@pytest.mark.parametrize(
    "case", sorted(p for p in CASES.iterdir() if p.suffix in {".sh", ".md"}), ids=lambda p: p.name
)
def test_launch_case(case: Path, update_golden: bool) -> None:
    got = [golden_line(f, case) for f in _findings(case)]
    expected = case.with_name(case.name + ".expected")
    if update_golden:
        header = EXPECTED_HEADER.replace(" (this rule)", "")
        expected.write_text("\n".join([header, *got]) + "\n", encoding="utf-8")
        return
    assert got == read_expected(expected)


def _line_free(path: Path) -> list[tuple]:
    """Findings without their line and path: what a script and a guide must share."""
    return sorted(
        (f.code, f.severity, f.span.column, f.message.replace("\n", " "), f.release)
        for f in _findings(path)
    )


@pytest.mark.parametrize("name", ["trtllm_line", "docker_run", "dynamo_worker"])
def test_a_guide_block_is_judged_as_the_same_lines_in_a_script(name: str) -> None:
    script, guide = _line_free(CASES / f"{name}.sh"), _line_free(CASES / f"{name}.md")
    assert script == guide
    assert any(f[0] in ("SL101", "SL151") and f[1] == Severity.ERROR for f in script), script


def test_a_launch_takes_the_pins_of_its_own_engine_only() -> None:
    sglang, vllm = read_markdown(str(CASES / "pins_per_engine.md")).launches
    assert (sglang.engine, sglang.image) == ("sglang", "lmsysorg/sglang:v0.5.9")
    assert (vllm.engine, vllm.image, vllm.release) == ("vllm", None, None)
