"""Facts of the committed SGLang profiles (built from the release wheels)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from servelint import profiles
from servelint.engines.sglang import argv as sglang_argv


def load(version: str) -> profiles.Profile:
    prof = profiles.load("sglang", version)
    if prof is None:
        pytest.skip(f"no committed sglang {version} profile")
    return prof


def test_every_final_release_from_0_5_1_has_a_profile():
    have = set(profiles.available("sglang"))
    finals = {f"0.5.{n}" for n in range(1, 24)}
    assert finals <= have


@pytest.mark.parametrize("version", profiles.available("sglang"))
def test_shape_by_release(version):
    prof = load(version)
    v = Version(version)
    want = ("add_argument" if v < Version("0.5.14") else
            "dataclass" if v < Version("0.5.20") else "namespaces")
    assert prof.data["parser"]["shape"] == want
    assert prof.data["parser"]["prog"] == "python -m sglang.launch_server"
    assert prof.env_unknown_warning is False
    assert "--model-path" in prof.option_index and prof.by_dest["model_path"].raw["required"]


def test_enable_ep_moe_removed_in_0_5_5():
    old = load("0.5.3").option_index["--enable-ep-moe"]
    assert old.deprecated and old.raw["deprecated_by"] == "action"
    assert "--ep-size" in old.raw["deprecated_message"]
    assert "--enable-ep-moe" not in load("0.5.5").option_index


def test_cuda_graph_max_bs_removed_in_0_5_20():
    old = load("0.5.18").option_index["--cuda-graph-max-bs"]
    assert old.deprecated and "--cuda-graph-max-bs-decode" in old.raw["deprecated_message"]
    assert "--cuda-graph-max-bs" not in load("0.5.20").option_index
    # ... and on 0.5.23 the old spelling is an ambiguous prefix (verified on the real parser)
    res = sglang_argv.parse(load("0.5.23"), ["--model-path", "m", "--cuda-graph-max-bs", "8"])
    assert res.error.startswith("ambiguous option: --cuda-graph-max-bs could match")


def test_config_support_and_gates():
    assert not load("0.5.1").rules["config_file"]
    assert load("0.5.9").rules["config_file"] and load("0.5.9").rules["config_trigger"] == \
        "exact_token"
    gates = [g for g in load("0.5.23").gates if g["trigger"] and
             g["trigger"].get("dest") == "tokenizer_backend"]
    assert gates and gates[0]["package"] == "fastokens" and gates[0]["extra"] == "fastokens"
    assert gates[0]["trigger"]["value"] == "fastokens"
    assert load("0.5.23").data["env"]["prefix_rewrite"]["from"] == "SGL_"


def test_tool_call_parser_remap_recorded():
    remaps = {(r["dest"], r["from"]): r["to"] for r in load("0.5.18").data["value_remaps"]}
    assert remaps[("tool_call_parser", "qwen25")] == "qwen"
