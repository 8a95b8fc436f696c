"""``sglang serve``: flags the LLM parser rejects judged against what the diffusion server
may take (profile ``serve_routing.diffusion_accepts``, read from each wheel)."""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.engines.sglang import argv as sglang_argv
from servelint.engines.sglang.serve_diffusion import may_take

ROUTING = {
    "diffusion_accepts": {
        "options": ["--num-gpus", "--ulysses-degree", "--backend"],
        "tails": [".flow-shift", "flow-shift"],
        "prefixes": ["--component-paths."],
        "suffixes": ["-path", "-quantization"],
        "rejects_unknown": "server_args.py:3709",
    }
}


@pytest.mark.parametrize(
    "flag",
    ["--num-gpus", "--ulysses-degree=2", "--ulysses", "--transformer.flow-shift",
     "--component-paths.vae", "--vae-path", "--transformer-quantization"],
)
def test_flags_a_diffusion_model_may_take(flag: str) -> None:
    assert may_take(ROUTING, flag)


@pytest.mark.parametrize("flag", ["--random-input-len", "--dataset-name", "--path", "-x"])
def test_flags_no_diffusion_model_takes(flag: str) -> None:
    assert not may_take(ROUTING, flag)


def test_without_a_rejecting_line_nothing_is_certain() -> None:
    loose = {"diffusion_accepts": {**ROUTING["diffusion_accepts"], "rejects_unknown": None}}
    assert may_take(loose, "--random-input-len")


def _serve(release: str, *words: str):
    profile = profiles.load("sglang", release)
    if profile is None or not (profile.rules.get("serve_routing") or {}).get("diffusion_accepts"):
        pytest.skip("no SGLang profile with diffusion_accepts")
    return sglang_argv.parse(profile, list(words), entry="serve")


def test_diffusion_launch_parses() -> None:
    got = _serve("0.5.23", "--model-path", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers",
                 "--num-gpus", "4", "--ulysses-degree", "2")
    assert got.ok and not got.routing


def test_benchmark_flags_fail_whatever_the_model() -> None:
    got = _serve("0.5.23", "--model-path", "m", "--backend", "sglang",
                 "--random-input-len", "1000")
    assert not got.ok and got.unrecognized == ["--random-input-len"] and not got.routing


def test_forced_diffusion_names_its_parser() -> None:
    from servelint.check import Options, check_text

    report = check_text(
        "#!/bin/bash\nsglang serve --model-type diffusion --model-path m --num-gpus 2 "
        "--mem-fraction-static 0.8\n",
        "bash",
        options=Options(engine="sglang==0.5.23"),
    )
    found = [(f.code, f.severity.name.lower(), f.message) for f in report.findings]
    assert [(c, s) for c, s, _ in found] == [("SL101", "error")]
    assert "multimodal-generation server (--model-type diffusion)" in found[0][2]
