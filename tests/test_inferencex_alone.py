"""A launcher script of an InferenceX checkout checked on its own (what a pre-commit hook
passes) is judged as the checkout judges it: with the rows of the master configs that bind
it (their image, env and GPU), not as a bare shell script against today's newest release."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from servelint.check import Options, check_paths
from servelint.cli import main

MINI = Path(__file__).parent / "cases" / "inferencex" / "mini"
SCRIPT = "benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh"  # m1-fp8-b200-sglang's


def check(capsys, monkeypatch, folder: Path, *paths: str) -> dict:
    monkeypatch.chdir(folder)
    main(["check", "--no-cache", "--format", "json", "--jobs", "1", *paths])
    return json.loads(capsys.readouterr().out)


def at(monkeypatch, folder: Path, script: str, *paths: str) -> tuple[list, list]:
    """The findings (rule, line, column, message) and launches placed in ``script`` when
    ``paths`` are checked, each at its own place (a warning of one cause in many files is
    otherwise reported once, at the first: the checkout's would sit in another script)."""
    monkeypatch.chdir(folder)
    report = check_paths(paths, Options(jobs=1, one_per_cause=False))
    real = os.path.realpath(script)
    findings = sorted(
        (f.rule, f.span.line, f.span.column, f.message)
        for f in report.findings
        if os.path.realpath(f.span.path) == real
    )
    launches = sorted(
        (s["line"], s["rendering"], tuple(s["judged_against"]), tuple(s["argv"]))
        for s in report.launch_items()
        if os.path.realpath(s["path"]) == real
    )
    return findings, launches


def test_a_script_alone_is_judged_against_the_image_its_master_config_pins(capsys, monkeypatch):
    alone = check(capsys, monkeypatch, MINI, SCRIPT)
    judged = {j for lr in alone["launches"] for j in lr["judged_against"]}
    assert judged == {"sglang 0.5.12 (image tag v0.5.12-cu130)"}  # not today's newest
    assert {lr["image"] for lr in alone["launches"]} == {"lmsysorg/sglang:v0.5.12-cu130"}
    assert {lr["gpu"] for lr in alone["launches"]} == {"b200"}
    assert alone["summary"]["profiles_used"] == ["sglang 0.5.12"]
    assert not any(f["code"] == "SL142" for f in alone["findings"])  # an image is pinned
    findings, launches = at(monkeypatch, MINI, SCRIPT, SCRIPT)
    assert (findings, launches) == at(monkeypatch, MINI, SCRIPT, ".")
    assert findings and len(launches) == 2
    # only the rows that bind this script: no other script's launches
    assert {os.path.realpath(lr["path"]) for lr in alone["launches"]} == {
        os.path.realpath(MINI / SCRIPT)
    }


def test_a_script_named_with_its_checkout_or_master_config_is_reported_once(
    capsys, monkeypatch
):
    for alone in (".", "configs/nvidia-master.yaml"):
        report = check(capsys, monkeypatch, MINI, alone)
        both = check(capsys, monkeypatch, MINI, alone, SCRIPT)
        assert both["stats"]["files"] == 1, alone  # the script's unit is dropped
        assert both["findings"] == report["findings"], alone
        assert both["launches"] == report["launches"], alone


def test_a_script_no_row_binds_is_read_as_a_shell_script(capsys, monkeypatch, tmp_path):
    text = "#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path org/M --tp 2\n"
    inside = tmp_path / "ix"
    shutil.copytree(MINI, inside)
    (inside / "benchmarks/single_node/fixed_seq_len/zz_fp8_b200.sh").write_text(text)
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "zz_fp8_b200.sh").write_text(text)
    got = check(capsys, monkeypatch, inside, "benchmarks/single_node/fixed_seq_len/zz_fp8_b200.sh")
    bare = check(capsys, monkeypatch, outside, "zz_fp8_b200.sh")
    assert got["findings"] and got["launches"]
    same = json.loads(json.dumps(got).replace("benchmarks/single_node/fixed_seq_len/", ""))
    for launch in (*same["launches"], *bare["launches"]):  # (absolute)
        launch["path"] = os.path.basename(launch["path"])
    assert same["findings"] == bare["findings"] and same["launches"] == bare["launches"]
    assert got["summary"]["profiles_used"] == bare["summary"]["profiles_used"]
