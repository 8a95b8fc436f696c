"""Option files given by path, for every engine: full-line golden cases.

Each folder under tests/cases/option_files/ is a small checkout: its launchers (``*.sh``) and
guides (``*.md``) at the top, the option files they name below. The first lines of a
launcher carry ``servelint-test: engine=ENGINE==X [check=PATH,...]`` (``check``: more paths
of the folder to check, e.g. an option file on its own). ``expected.out`` holds every
finding (all rules, info included) as ``path:line:column: severity code rule: message``
with paths relative to the folder; ``pytest tests/test_option_files_by_path.py --update``
rewrites them (then review the diff).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from servelint import profiles
from servelint.check import Options, check_paths
from servelint.model import Finding

CASES = Path(__file__).parent / "cases" / "option_files"
HEADER = re.compile(r"servelint-test:\s*(.*?)\s*(?:-->)?$")


def _cases() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir())


def _launchers(case: Path) -> list[Path]:
    return sorted(p for p in case.iterdir() if p.suffix in (".sh", ".md"))


def _options(case: Path) -> tuple[Options, list[str]]:
    opts: dict[str, str] = {}
    for launcher in _launchers(case):
        for line in launcher.read_text(encoding="utf-8").splitlines()[:3]:
            m = HEADER.search(line)
            if m:
                opts.update(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
    extra = [str(case / p) for p in opts.get("check", "").split(",") if p]
    return Options(engine=opts.get("engine"), use_cache=False), extra


def _line(f: Finding, case: Path) -> str:
    where = os.path.relpath(f.span.path, case) if os.path.isabs(f.span.path) else f.span.path
    if not os.path.isabs(f.span.path) and Path(f.span.path).is_relative_to(case):
        where = str(Path(f.span.path).relative_to(case))
    release = f" [{f.engine} {f.release}]" if f.release else ""
    return (
        f"{where}:{f.span.line}:{f.span.column}: {f.severity.label} {f.code} {f.rule}: "
        f"{f.message}{release}"
    )


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_option_file_case(case: Path, update_golden: bool) -> None:
    if not profiles.available("trtllm"):
        pytest.skip("no committed TensorRT-LLM profiles")
    options, extra = _options(case)
    paths = [str(p) for p in _launchers(case)] + extra
    report = check_paths(paths, options)
    got = [_line(f, case) for f in report.findings]
    expected = case / "expected.out"
    if update_golden:
        expected.write_text("".join(line + "\n" for line in got), encoding="utf-8")
        return
    assert got == expected.read_text(encoding="utf-8").splitlines()
