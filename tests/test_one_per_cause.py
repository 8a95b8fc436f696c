"""One cause repeated in many files is one finding (servelint.pipeline.condense.one_finding_per_cause).

Golden cases: tests/cases/causes/<case>/ holds real files checked together (each cites its
source in its first line); <case>.expected holds every finding of the folder as a full line
(test_rule_cases.golden_line) followed by its related places (read notes aside: they name
the checkout's folder). ``pytest
tests/test_one_per_cause.py --update`` rewrites them (then review the diff).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_cases import golden_line

from servelint import profiles
from servelint.check import Options, check_paths
from servelint.model import Finding, Severity, Span
from servelint.pipeline.condense import one_finding_per_cause

CASES = Path(__file__).parent / "cases" / "causes"


def _lines(case: Path, options: Options) -> list[str]:
    report = check_paths([str(case)], options)
    out = []
    for f in report.findings:
        if f.code in ("SL001", "SL142"):  # notes naming this checkout's folder
            continue
        out.append(golden_line(f, case / "x"))
        out += [f"  related {Path(s.path).name}:{s.line}:{s.column}" for s in f.related]
    return out


@pytest.mark.parametrize("case", sorted(p for p in CASES.iterdir() if p.is_dir()),
                         ids=lambda p: p.name)
def test_cause_case(case: Path, update_golden: bool) -> None:
    if not profiles.available("sglang"):
        pytest.skip("no committed SGLang profiles")
    got = _lines(case, Options(use_cache=False, no_ignores=True))
    expected_file = case.parent / (case.name + ".expected")
    if update_golden:  # (the comment lines at the top are kept)
        kept = [line for line in expected_file.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")] if expected_file.exists() else []
        expected_file.write_text("\n".join([*kept, *got]) + "\n", encoding="utf-8")
        return
    expected = [line for line in expected_file.read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#")]
    assert got == expected


def test_fix_runs_see_every_place() -> None:
    """``--fix`` and ``--diff`` check with ``one_per_cause=False``: every place is a finding
    of its own (with its own edit)."""
    if not profiles.available("sglang"):
        pytest.skip("no committed SGLang profiles")
    case = CASES / "deprecated-flag"
    joined = check_paths([str(case)], Options(use_cache=False, no_ignores=True))
    apart = check_paths([str(case)], Options(use_cache=False, no_ignores=True,
                                             one_per_cause=False))
    deprecated = [f for f in apart.findings if f.code == "SL104"]
    assert len(deprecated) == 4
    assert len({f.span.path for f in deprecated}) == 2
    assert len([f for f in joined.findings if f.code == "SL104"]) == 2


def _warning(code: str, message: str, path: str, line: int, fix: str = "drop it",
             severity: Severity = Severity.WARNING) -> Finding:
    return Finding(rule="r", code=code, severity=severity, message=message,
                   span=Span(path, line, 1), engine="vllm", release="0.21.0", fix=fix)


def test_only_one_cause_and_one_remedy_are_joined() -> None:
    got = one_finding_per_cause([
        _warning("SL104", 'flag "--a" is deprecated in vllm 0.21.0', "x.sh", 1),
        _warning("SL104", 'flag "--a" is deprecated in vllm 0.22.0', "y.sh", 2),
        _warning("SL104", 'flag "--b" is deprecated in vllm 0.21.0', "y.sh", 3),  # another name
        _warning("SL104", 'flag "--a" is deprecated', "z.sh", 4, fix="other"),  # another remedy
        _warning("SL101", 'unknown flag "--a"', "z.sh", 5, severity=Severity.ERROR),  # error
        _warning("SL001", "cannot read", "z.sh", 6),  # not a rule of one cause
        _warning("SL001", "cannot read", "w.sh", 6),
    ])
    assert [(f.span.path, f.span.line) for f in got] == [
        ("x.sh", 1), ("y.sh", 3), ("z.sh", 4), ("z.sh", 5), ("z.sh", 6), ("w.sh", 6)]
    assert got[0].related == [Span("y.sh", 2, 1)]
    assert got[0].message == ('flag "--a" is deprecated in vllm 0.21.0 [one cause: 2 places '
                              "in 2 files; the others are listed as related]")
    assert all(not f.related for f in got[1:])


def test_one_place_judged_on_several_releases_names_them() -> None:
    one = Span("x.sh", 1, 1)
    a = _warning("SL121", "VLLM_X is not registered in vllm 0.21.0", "x.sh", 1)
    b = _warning("SL121", "VLLM_X is not registered in vllm 0.22.0", "x.sh", 1)
    b.release = "0.22.0"
    got = one_finding_per_cause([a, b])
    assert len(got) == 1 and got[0].related == [] and got[0].span == one
    assert got[0].message == "VLLM_X is not registered in vllm 0.21.0 [judged on vllm 0.21.0, 0.22.0]"
