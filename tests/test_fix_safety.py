"""Issue 32: a safe fix is verified by re-checking in memory before anything is written,
and ``--diff`` shows exactly what ``--fix`` writes (one computation for both)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from servelint import profiles
from servelint.cli import main

CASES = Path(__file__).parent / "cases"
CORPUS = Path(os.environ.get("SERVELINT_CORPUS", Path(__file__).resolve().parents[2] / "shared"
                             / "corpus"))


def _recipe(tmp_path: Path, case: Path) -> Path:
    work = tmp_path / "models" / "org" / case.name
    work.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(case, work)
    return work


def test_a_floor_raise_that_adds_an_error_is_demoted(tmp_path, capsys):
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    work = _recipe(tmp_path, CASES / "fix_safety" / "floor-adds-error.yaml")
    before = work.read_text(encoding="utf-8")
    assert main(["check", "--no-cache", "--fix", str(work)]) == 0  # warnings only, as before
    err = capsys.readouterr().err
    assert work.read_text(encoding="utf-8") == before
    assert "1 safe fix demoted to unsafe (re-checking showed a new finding)" in err
    assert "1 more with --unsafe-fixes" in err
    # asked for, the demoted fix applies (and the error it brings is reported)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(work)]) == 1
    assert 'min_vllm_version: "0.17.0"' in work.read_text(encoding="utf-8")


def test_diff_shows_exactly_what_fix_writes(tmp_path, capsys):
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    cases = sorted((CASES / "fixes").glob("*.before.*"))
    for case in cases:  # the fix cases: several passes, overlaps, demotions
        target = tmp_path / "work" / case.name.replace(".before", "")
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(case, target)
    # two recipes whose floor findings sit on the same strategy line and merge into one
    # finding: one recipe is fixed per pass (a one-pass --diff showed one file of two)
    for name in ("a", "b"):
        (tmp_path / "work" / f"{name}.yaml").write_text(
            'model:\n  model_id: org/model\n  min_vllm_version: "0.10.0"\nvariants:\n'
            "  default: {precision: bf16, vram_minimum_gb: 20}\n"
            "compatible_strategies: [multi_node_tp]\n", encoding="utf-8")
    shutil.copytree(tmp_path / "work", tmp_path / "copy")
    os.chdir(tmp_path)
    main(["check", "--no-cache", "--diff", "work"])
    out, err_diff = capsys.readouterr()
    main(["check", "--no-cache", "--fix", "copy"])
    err_fix = capsys.readouterr().err
    written = []
    for path in sorted((tmp_path / "copy").iterdir()):
        original = (tmp_path / "work" / path.name).read_text(encoding="utf-8")
        if path.read_text(encoding="utf-8") != original:
            written.append(path.name)
    shown = sorted(line.split("/")[-1].strip() for line in out.splitlines()
                   if line.startswith("+++ "))
    assert {"a.yaml", "b.yaml"} <= set(written) and shown == written
    # the same counts: "would fix N findings in M files" / "fixed N findings in M files"
    assert err_diff.split("would fix ")[1] == err_fix.split("fixed ")[1]


def test_corpus_fix_adds_no_error(tmp_path, capsys):
    """The recipes corpus: ``--fix`` on a copy leaves no more errors than it found (8 → 9
    before: Qwen2.5-VL-7B's floor raise made its guide's --guided-decoding-backend fail)."""
    source = CORPUS / "vllm-recipes" / "models" / "Qwen" / "Qwen2.5-VL-7B-Instruct.yaml"
    if not source.exists():
        pytest.skip("corpus not beside the checkout")
    work = tmp_path / "models" / "Qwen" / source.name
    work.parent.mkdir(parents=True)
    shutil.copyfile(source, work)
    main(["check", "--no-cache", "--format", "json", "-q", str(work)])
    errors_before = capsys.readouterr().out.count('"severity":"error"')
    main(["check", "--no-cache", "--fix", "--format", "json", "-q", str(work)])
    assert capsys.readouterr().out.count('"severity":"error"') <= errors_before
