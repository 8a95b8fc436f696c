"""Upgrade impact: ``--target-version`` and ``--works-on`` on small launches.

Engine facts come from the committed profiles (the history index), never from this file:
each test first reads which releases hold the flag it uses, then checks the verdicts.
"""

import json

import pytest
from packaging.version import Version

from servelint import profiles
from servelint.cli import main
from servelint.engine import history as history_mod

TARGET = "0.33.0"
REMOVED = "--disable-log-requests"  # engine-churn.md section 1: deprecated 0.10.2, removed 0.17.0


def _history():
    if TARGET not in profiles.available("vllm"):
        pytest.skip(f"no committed vLLM {TARGET} profile")
    hist = history_mod.load("vllm")
    if hist is None or TARGET not in hist.releases:
        pytest.skip("no vLLM history index covering the target")
    return hist


def _removed_flag(hist) -> str:
    pres = hist.of("option", REMOVED)
    if not pres.releases:
        pytest.skip(f"{REMOVED} is in no committed profile")
    assert TARGET not in pres.releases
    assert Version(pres.last) < Version("0.17.0")  # the removal the churn study traced
    return REMOVED


def _run(capsys, *args: str) -> dict:
    main(["check", *args, "--format", "json"])
    return json.loads(capsys.readouterr().out)


def _flag_unknown(report: dict) -> list[tuple[str, int, int]]:
    return [(f["release"], f["line"], f["column"]) for f in report["findings"]
            if f["rule"] == "flag-unknown"]


def test_script_with_removed_flag_is_judged_against_target(tmp_path, capsys):
    hist = _history()
    flag = _removed_flag(hist)
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\npip install vllm=={hist.of('option', flag).last}\n"
                      f"vllm serve org/m {flag}\n")
    pinned = _run(capsys, str(script))
    assert _flag_unknown(pinned) == []  # fine on the release the script pins
    bumped = _run(capsys, str(script), "--target-version", f"vllm=={TARGET}")
    assert _flag_unknown(bumped) == [(TARGET, 3, 18)]


def test_recipe_with_removed_flag_is_judged_against_target(tmp_path, capsys):
    hist = _history()
    flag = _removed_flag(hist)
    recipe = tmp_path / "models" / "org" / "m.yaml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text(
        "model:\n  model_id: org/m\n  min_vllm_version: \"0.10.0\"\n"
        f"  base_args: [\"{flag}\"]\n"
        "variants:\n  default: {precision: bf16, vram_minimum_gb: 20}\n"
        "compatible_strategies: [single_node_tp]\n")
    report = _run(capsys, str(recipe), "--target-version", f"vllm=={TARGET}")
    found = set(_flag_unknown(report))
    assert found == {(TARGET, 4, 15)}
    assert all(lr["judged_against"][0].startswith(f"vllm {TARGET}")
               for lr in report["launches"])


def _range_flag(hist) -> tuple[str, str, str]:
    """A boolean flag present in one contiguous range strictly inside the known releases."""
    newest = profiles.load("vllm", hist.releases[-1])
    oldest = profiles.load("vllm", hist.releases[0])
    bool_kinds = {"store_true", "store_false", "boolean_optional"}
    kinds = {}
    for version in (hist.releases[0], hist.releases[-1], *hist.releases):
        prof = profiles.load("vllm", version)
        for act in prof.actions:
            for opt in act.accepted:
                kinds.setdefault(opt, act.kind)
    for flag in sorted(hist.presence.get("option", {})):
        pres = hist.of("option", flag).releases
        if not flag.startswith("--") or kinds.get(flag) not in bool_kinds or not pres:
            continue
        idx = [hist.releases.index(r) for r in pres]
        contiguous = idx == list(range(idx[0], idx[-1] + 1))
        if contiguous and idx[0] > 0 and idx[-1] < len(hist.releases) - 1 and \
                flag not in newest.option_index and flag not in oldest.option_index:
            return flag, pres[0], pres[-1]
    pytest.skip("no flag with a strictly inner release range in the committed profiles")


def test_works_on_first_and_last_release(tmp_path, capsys):
    hist = _history()
    flag, first, last = _range_flag(hist)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    report = _run(capsys, str(script), "--engine", f"vllm=={first}", "--works-on")
    (launch,) = report["launches"]
    works = launch["works_on"]
    assert (works["first"], works["last"]) == (first, last)
    assert works["releases"] == len(hist.of("option", flag).releases)


def test_works_on_removed_flag_ends_before_removal(tmp_path, capsys):
    hist = _history()
    flag = _removed_flag(hist)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    report = _run(capsys, str(script), "--works-on")
    works = report["launches"][0]["works_on"]
    pres = hist.of("option", flag)
    assert (works["first"], works["last"]) == (pres.first, pres.last)
