"""Upgrade impact: ``--target-version`` and ``--works-on`` on small launches.

Engine facts come from the committed profiles, never from this file:
each test first reads which releases hold the flag it uses, then checks the verdicts.
"""

import json

import pytest

from servelint import profiles
from servelint.cli import main

TARGET = "0.33.0"
BOOL_KINDS = {"store_true", "store_false", "boolean_optional"}


class Releases:
    """Which committed profiles accept each option (read from the profiles themselves)."""

    def __init__(self) -> None:
        self.releases = list(profiles.available("vllm"))
        self.profiles = {v: profiles.load("vllm", v) for v in self.releases}

    def of(self, flag: str) -> list[str]:
        return [v for v in self.releases if flag in self.profiles[v].option_index]

    def kind(self, flag: str) -> str | None:
        for prof in self.profiles.values():
            if flag in prof.option_index:
                return prof.option_index[flag].kind
        return None


def _releases() -> Releases:
    if TARGET not in profiles.available("vllm"):
        pytest.skip(f"no committed vLLM {TARGET} profile")
    return Releases()


def _flags(rel: Releases, *, inner: bool) -> tuple[str, str, str]:
    """A boolean flag present in one contiguous run of releases that ends before the newest
    (``inner``: that also starts after the oldest). Chosen from the profiles, never typed."""
    n = len(rel.releases)
    options = sorted({o for p in rel.profiles.values() for o in p.option_index})
    for flag in options:
        pres = rel.of(flag)
        if not flag.startswith("--") or rel.kind(flag) not in BOOL_KINDS or not pres:
            continue
        idx = [rel.releases.index(r) for r in pres]
        if idx != list(range(idx[0], idx[-1] + 1)) or idx[-1] >= n - 1:
            continue
        if inner and idx[0] == 0:
            continue
        return flag, pres[0], pres[-1]
    pytest.skip("no such flag in the committed profiles")


def _removed_flag(rel: Releases) -> str:
    flag, _, last = _flags(rel, inner=False)
    assert TARGET not in rel.of(flag) and last != TARGET
    return flag


def _run(capsys, *args: str) -> dict:
    main(["check", *args, "--format", "json"])
    return json.loads(capsys.readouterr().out)


def _run_text(capsys, *args: str) -> str:
    main(["check", *args, "--no-cache"])
    return capsys.readouterr().out


def _flag_unknown(report: dict) -> list[tuple[str, int, int]]:
    return [(f["release"], f["line"], f["column"]) for f in report["findings"]
            if f["rule"] == "flag-unknown"]


def test_script_with_removed_flag_is_judged_against_target(tmp_path, capsys):
    rel = _releases()
    flag = _removed_flag(rel)
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\npip install vllm=={rel.of(flag)[-1]}\n"
                      f"vllm serve org/m {flag}\n")
    pinned = _run(capsys, str(script))
    assert _flag_unknown(pinned) == []  # fine on the release the script pins
    bumped = _run(capsys, str(script), "--target-version", f"vllm=={TARGET}")
    assert _flag_unknown(bumped) == [(TARGET, 3, 18)]
    assert bumped["launches"][0]["judged_against"][0].startswith(f"vllm {TARGET}")


def test_recipe_with_removed_flag_is_judged_against_target(tmp_path, capsys):
    rel = _releases()
    flag = _removed_flag(rel)
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


def test_works_on_first_and_last_release(tmp_path, capsys):
    rel = _releases()
    flag, first, last = _flags(rel, inner=True)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    report = _run(capsys, str(script), "--engine", f"vllm=={first}", "--works-on")
    (launch,) = report["launches"]
    works = launch["works_on"]
    assert (works["first"], works["last"]) == (first, last)
    assert works["releases"] == len(rel.of(flag))


def test_works_on_removed_flag_ends_before_removal(tmp_path, capsys):
    rel = _releases()
    flag = _removed_flag(rel)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    report = _run(capsys, str(script), "--works-on")
    works = report["launches"][0]["works_on"]
    pres = rel.of(flag)
    assert (works["first"], works["last"]) == (pres[0], pres[-1])


def test_works_on_counts_a_flag_that_came_back(tmp_path, capsys):
    """--disable-log-requests: deprecated, then gone, then accepted again by 0.33.0 as the
    negative of --enable-log-requests (oracle out/0.33.0/parser.json: EnableDisableAction)."""
    rel = _releases()
    flag = "--disable-log-requests"
    pres = rel.of(flag)
    if not pres or TARGET not in pres or len(pres) == rel.releases.index(TARGET) + 1:
        pytest.skip("profiles do not show the gap")
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    works = _run(capsys, str(script), "--works-on")["launches"][0]["works_on"]
    assert (works["first"], works["last"], works["releases"]) == (pres[0], TARGET, len(pres))


def test_json_gives_works_on_without_the_flag(tmp_path, capsys):
    """JSON output carries first/last for every launch; only --works-on counts releases."""
    rel = _releases()
    flag, first, last = _flags(rel, inner=True)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    works = _run(capsys, str(script), "--no-cache")["launches"][0]["works_on"]
    assert works == {"first": first, "last": last}


def test_works_on_is_not_claimed_for_a_community_image(tmp_path, capsys):
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve org/m --max-model-len 4096\n")
    launches = _run(capsys, str(script), "--no-cache", "--image", "someone/vllm-fork:v1")[
        "launches"]
    assert launches and all("works_on" not in lr for lr in launches)


def _recipe(tmp_path, floor: str, flag: str):
    folder = tmp_path / "models" / "org"
    folder.mkdir(parents=True)
    recipe = folder / "m.yaml"
    recipe.write_text(
        "model:\n  model_id: org/m\n"
        f"  min_vllm_version: \"{floor}\"\n"
        f"  base_args: [\"{flag}\"]\n"
        "variants:\n  default: {precision: bf16, vram_minimum_gb: 20}\n"
        "compatible_strategies: [single_node_tp]\n")
    return recipe


def _below_floor(report: dict) -> list[dict]:
    return [f for f in report["findings"] if "is below the first release" in f["message"]]


def test_floor_below_first_working_release_is_a_finding(tmp_path, capsys):
    rel = _releases()
    flag, first, _ = _flags(rel, inner=True)
    floor = rel.releases[rel.releases.index(first) - 1]  # the release before the flag exists
    report = _run(capsys, str(_recipe(tmp_path, floor, flag)), "--no-cache")
    (found,) = {(f["line"], f["column"], f["message"], f["severity"]) for f in
                _below_floor(report)}
    assert found[:2] == (3, 21)  # the min_vllm_version value
    assert f"min_vllm_version {floor} is below the first release this launch can work on " \
           f"(vllm {first}): it fails on {floor}" in found[2]
    assert found[3] == "warning"
    assert all(lr["works_on"]["first"] == first for lr in report["launches"])
    text = _run_text(capsys, str(_recipe(tmp_path / "text", floor, flag)))
    assert f"min_vllm_version {floor} is below" in " ".join(text.split())  # in every format


def test_floor_at_first_working_release_is_no_finding(tmp_path, capsys):
    rel = _releases()
    flag, first, _ = _flags(rel, inner=True)
    report = _run(capsys, str(_recipe(tmp_path, first, flag)), "--no-cache")
    assert _below_floor(report) == []


def test_fast_endpoints_equal_checking_every_release():
    """The pruned scan gives the same first/last as checking every release, on real recipes
    (40 sampled launches; the whole corpus gave 0 differences on 1,500 sampled)."""
    import random
    from pathlib import Path

    from servelint.pipeline.discover import discover
    from servelint.pipeline.judge import check_spec, passes_on
    from servelint.pipeline.options import Options
    from servelint.pipeline.read import read_job
    from servelint.releases import works_on as works_on_mod
    from servelint.sources.base import ReadContext

    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vllm-recipes"
    if not corpus.is_dir():
        pytest.skip("corpus not beside the checkout")
    opts = Options()
    specs = []
    for org in ("Qwen", "MiniMaxAI", "deepseek-ai"):
        for job in discover([str(corpus / "models" / org)], opts):
            specs.extend(read_job(job, ReadContext()).specs)
    random.seed(3)
    sample = random.sample(specs, 40)
    checked = 0
    for spec in sample:
        check_spec(spec, opts)
        fast = works_on_mod.works_on(spec, passes_on)
        if fast is None:
            continue
        passing = [r for r in profiles.available("vllm") if passes_on(spec, r)]  # no pruning
        checked += 1
        assert (fast["first"], fast["last"]) == (passing[0], passing[-1]), spec.rendering
    assert checked > 20


def test_package_verdict_names_the_bumped_image(capsys):
    """The seed recipe pins v0.27.1; judged at TARGET, the package gate speaks of TARGET's image."""
    from pathlib import Path

    _releases()
    recipe = Path(__file__).resolve().parents[1] / "examples" / "recipe" / \
        "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
    report = _run(capsys, str(recipe), "--target-version", f"vllm=={TARGET}", "--no-cache")
    msgs = [f["message"] for f in report["findings"] if f["rule"] == "package-missing"]
    assert msgs, "the fastokens gate must still fire at the target release"
    assert all(f"the vllm {TARGET} image (its image vllm/vllm-openai:v0.27.1, bumped)" in m
               for m in msgs)


def test_works_on_verdicts_do_not_stat_the_profile_store(tmp_path, capsys, monkeypatch):
    """A works-on verdict resolves the launch at a target version, which reads no stored
    profile: the store's index is looked at for the launch's own resolution only, not once
    per release asked (it was: 1,835 launches of MiniMax-M3.yaml, 21,699 stats)."""
    from servelint.profiles import store

    _releases()
    asked: list[tuple] = []
    real_state = store.state
    monkeypatch.setattr(store, "state", lambda: asked.append(()) or real_state())
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve org/m --max-model-len 4096\n")
    report = _run(capsys, str(script), "--no-cache", "--image", "vllm/vllm-openai:v0.10.0",
                  "--works-on")
    assert report["launches"][0]["works_on"]["releases"] > 1  # several releases were judged
    assert len(asked) <= 1


def test_works_on_reads_the_launch_key_once_not_per_release(tmp_path, capsys, monkeypatch):
    """The release-independent part of a launch's parse key (its argv texts, the files it
    names, stat'ed) is read once per launch: works-on judged the launch on every release,
    and read it again for each one."""
    from servelint.pipeline import argv_memo

    _releases()
    asked: list[tuple[str, ...]] = []
    real = argv_memo.named_files
    monkeypatch.setattr(argv_memo, "named_files", lambda argv: asked.append(argv) or real(argv))
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve org/m --max-model-len 4096\n")
    report = _run(capsys, str(script), "--no-cache", "--image", "vllm/vllm-openai:v0.10.0",
                  "--works-on")
    assert report["launches"][0]["works_on"]["releases"] > 2  # several releases were judged
    assert len(asked) <= 3  # its own check (notes, its release), then all works-on verdicts
