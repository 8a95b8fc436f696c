"""Golden cases for release ranges, document context, placeholders and shell edge cases:
tests/cases/ranges/<case>.(md|sh|yaml) + <case>.expected, every finding of every rule at
warning or above, as full lines (``tests/test_rule_cases.golden_line``), plus the info notes
of release resolution (``release-unresolved``, one per file). ``--update`` rewrites them."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_cases import EXPECTED_HEADER, case_options, golden_line, read_expected

from servelint import profiles
from servelint.check import check_paths
from servelint.model import Severity
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.syntax import parse_source

CASES = Path(__file__).parent / "cases" / "ranges"


def _cases() -> list[Path]:
    return sorted(p for p in CASES.rglob("*") if p.suffix in {".md", ".sh", ".yaml"})


@pytest.mark.parametrize("case", _cases(), ids=lambda p: str(p.relative_to(CASES)))
def test_range_case(case: Path, update_golden: bool) -> None:
    if not profiles.available("vllm"):
        pytest.skip("no committed vLLM profiles")
    options = case_options(case)
    options.one_per_cause = False  # each launch's own range verdict is what is compared
    report = check_paths([str(case)], options)
    got = [
        golden_line(f, case)
        for f in report.findings
        if f.severity >= Severity.WARNING or f.rule == "release-unresolved"
    ]
    expected_file = case.with_suffix(".expected")
    if update_golden:
        expected_file.write_text(
            "\n".join([EXPECTED_HEADER.replace(" (this rule)", ""), *got]) + "\n", encoding="utf-8"
        )
        return
    assert got == read_expected(expected_file)


def _words(script: str, env: dict[str, str | None]) -> list[tuple[str, bool]]:
    interp = Interpreter("t.sh", ".", env)
    interp.run(parse_source("t.sh", script.encode()))
    (launch,) = interp.launches
    return [(t.text, t.symbolic) for t in launch.argv]


def test_arithmetic_inside_a_default_is_computed_never_empty() -> None:
    """tree-sitter-bash reads ``$(( … ))`` inside ``${X:-…}`` as a subshell: the word was
    empty when the caller's environment is complete (InferenceX)."""
    script = (
        'N=4\nvllm serve m --a ${X:-$(( N * 2 ))} --b "${Y:-$((N+1))}" --c ${Z:-$(( $(nproc) ))}\n'
    )
    assert _words(script, {}) == [
        ("m", False),
        ("--a", False),
        ("8", False),
        ("--b", False),
        ("5", False),
        ("--c", False),
        ("$(( $(nproc) ))", True),
    ]
    assert _words(script, {"X": None})[2] == ("${X:-$(( N * 2 ))}", True)  # X set, unknown
