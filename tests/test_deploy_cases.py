"""Golden cases per deployment file kind: tests/cases/deploy/<kind>/<case> + <case>.expected.

Each case is checked as a file of its own (its folder is the kind the readers must find by
content, never by folder name, except ``kubernetes/models/``: a manifest there is no
recipe). ``<case>.expected`` holds every finding as a full line (info included, as
test_rule_cases writes them) and one ``launch`` line per launch (place, engine, entrypoint,
argv with symbolic words in ``{…}``, image, rendering). ``pytest tests/test_deploy_cases.py
--update`` rewrites them (then review the diff). The sources are named in each case's first
line: real files (repository and path) or adversarial ones written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_cases import golden_line

from servelint import profiles
from servelint.check import Options, check_paths

CASES = Path(__file__).parent / "cases" / "deploy"
SUFFIXES = {".yaml", ".yml", ".tpl", ".j2"}


def _cases() -> list[Path]:
    return sorted(p for p in CASES.rglob("*") if p.suffix in SUFFIXES
                  and p.name != "Chart.yaml")


def _launch_line(launch, case: Path) -> str:  # noqa: ANN001
    s = launch.summary
    where = Path(s["path"]).name if Path(s["path"]).parent == case.parent else s["path"]
    symbolic = set(s.get("symbolic", []))
    argv = " ".join("{" + w + "}" if i in symbolic else w for i, w in enumerate(s["argv"]))
    return (f"launch {where}:{s['line']}:{s['column']}: {s['engine']} {s['entrypoint']} "
            f"{argv} | image {s['image']} | {s['rendering']}")


@pytest.mark.parametrize("case", _cases(), ids=lambda p: str(p.relative_to(CASES)))
def test_deploy_case(case: Path, update_golden: bool) -> None:
    if not profiles.available("vllm"):
        pytest.skip("no committed vLLM profiles")
    report = check_paths([str(case)], Options(use_cache=False, no_ignores=True))
    got = [golden_line(f, case) for f in report.findings]
    got += [_launch_line(lr, case) for lr in report.launches]
    expected_file = case.parent / (case.name + ".expected")
    if update_golden:
        expected_file.write_text("\n".join(got) + "\n", encoding="utf-8")
        return
    expected = [line for line in expected_file.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    assert got == expected
