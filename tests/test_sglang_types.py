"""SGLang's custom ``type=`` functions, action classes and post-parse checks, modelled from
the release's code (builder/type_models.py -> value_models.py), and `sglang serve` routing.

Every expectation here was confirmed against the real parser of 0.5.23 / 0.5.9 (the
adversarial verdicts in tests/conformance_sglang/adversarial-*.json.gz hold the same cases).
"""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.check import Options, check_text
from servelint.engines.sglang import argv as sglang_argv

BASE = ["--model-path", "m"]


@pytest.fixture(scope="module")
def p523():
    return profiles.load("sglang", "0.5.23")


@pytest.fixture(scope="module")
def p59():
    return profiles.load("sglang", "0.5.9")


def verdict(profile, *argv, entry="launch_server"):
    res = sglang_argv.parse(profile, BASE + list(argv), entry=entry)
    return (res.ok, res.exit_code)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("4096", True),
        (" 4096 ", True),
        ("1k", True),
        ("25.6k", True),
        ("1Ki", True),
        ("1.5Gi", False),
        ("1K", False),
        ("1.5", False),
        ("1e3", False),
        ("-1", True),
        ("1_000", True),
        ("\u0661\u0662", True),
        ("1.5k", True),
    ],
)
def test_human_readable_int(p523, value, ok):
    # sglang/srt/utils/common.py human_readable_int: fullmatch of the suffix pattern, IEC
    # decimals raise, else int()
    assert verdict(p523, "--context-length", value)[0] is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ('{"decode": {"max_bs": 8}}', True),
        ("{}", True),
        ('{"decode": {"nope": 1}}', False),
        ('{"middle": {}}', False),
        ('{"decode": 1}', False),
        ("[]", False),
        ("x", False),
        ('{"prefill": {"backend": "tc_piecewise"}}', False),
        ('{"prefill": {"backend": "anything"}}', True),
    ],
)
def test_cuda_graph_config(p523, value, ok):
    # sglang/srt/model_executor/cuda_graph_config.py parse_cuda_graph_config_arg
    assert verdict(p523, "--cuda-graph-config", value)[0] is ok


@pytest.mark.parametrize(
    ("value", "ok"), [("full", True), ("FULL", False), ("tc_piecewise", False), ("", False)]
)
def test_choices_after_a_custom_type(p523, value, ok):
    # parse_cuda_graph_backend_arg returns its input: argparse's choices then apply
    assert verdict(p523, "--cuda-graph-backend-decode", value)[0] is ok


def test_json_types(p523, p59):
    assert verdict(p523, "--preferred-sampling-params", '{"a": 1}') == (True, 0)
    assert verdict(p523, "--preferred-sampling-params", "{'a': 1}") == (False, 2)
    # json_list_type loads with orjson: no NaN, no infinity (big integers are doubles)
    assert verdict(p523, "--forward-hooks", "[NaN]")[0] is False
    assert verdict(p523, "--forward-hooks", "[" + "9" * 30 + "]")[0] is True  # a double
    assert verdict(p523, "--forward-hooks", "[1e400]")[0] is False  # infinity
    assert verdict(p523, "--forward-hooks", "[1, 2]")[0] is True
    assert verdict(p59, "--forward-hooks", "[1,]")[0] is False


def test_lora_path_action(p523):
    # LoRAPathAction.__call__: braced values are json.loads-ed and must name both keys
    assert verdict(p523, "--lora-paths", "a=b", "c") == (True, 0)
    assert verdict(p523, "--lora-paths", '{"lora_name": "a", "lora_path": "b"}') == (True, 0)
    assert verdict(p523, "--lora-paths", '{"lora_name": "a"}') == (False, 1)
    assert verdict(p523, "--lora-paths", "{bad}") == (False, 1)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("info", True),
        ("Warn", True),
        ("FATAL", True),
        ("chatty", False),
        ("basic_format", False),
        ("", False),
    ],
)
def test_log_level_getattr_logging(p523, value, ok):
    # prepare_server_args: logging.basicConfig(level=getattr(logging, log_level.upper()))
    assert verdict(p523, "--log-level", value)[0] is ok


def test_log_level_not_checked_before_0_5_23(p59):
    assert verdict(p59, "--log-level", "chatty") == (True, 0)


def test_serve_routing(p523):
    res = sglang_argv.parse(p523, ["Qwen/Qwen3-8B", "--tp-size", "2"], entry="serve")
    assert res.ok and not res.routing
    # --model-type diffusion: judged against what the diffusion server takes
    res = sglang_argv.parse(
        p523, ["m", "--model-type", "diffusion", "--num-gpus", "2"], entry="serve"
    )
    assert res.ok and not res.routing
    res = sglang_argv.parse(
        p523, ["m", "--model-type", "diffusion", "--mem-fraction-static", "0.8"], entry="serve"
    )
    assert not res.ok and res.unrecognized == ["--mem-fraction-static"]
    assert res.unrecognized_indices == [3]
    # every flag is one a diffusion model takes (serve_routing.diffusion_accepts)
    res = sglang_argv.parse(p523, ["m", "--num-gpus", "2"], entry="serve")
    assert res.ok and not res.routing
    # each parser rejects a different flag: the model decides, the note says so
    res = sglang_argv.parse(
        p523, ["m", "--num-gpus", "2", "--mem-fraction-static", "0.8"], entry="serve"
    )
    assert not res.ok and "declares --num-gpus" in res.routing
    res = sglang_argv.parse(p523, ["m", "--model-type", "llm", "--num-gpus", "2"], entry="serve")
    assert not res.ok and not res.routing


def _findings(text):
    report = check_text(text, "bash", options=Options(engine="sglang==0.5.23"))
    return [(f.code, f.severity.name.lower(), f.message) for f in report.findings]


def test_serve_unknown_flag_is_a_warning_naming_both_parsers():
    # --num-gpus alone is a diffusion server flag: fine for a diffusion model, no finding
    assert not _findings("#!/bin/bash\nsglang serve Qwen/Qwen3-8B --num-gpus 2\n")
    found = _findings(
        "#!/bin/bash\nsglang serve Qwen/Qwen3-8B --num-gpus 2 --mem-fraction-static 0.8\n"
    )
    assert [(c, s) for c, s, _ in found] == [("SL101", "warning")]
    assert "multimodal-generation server" in found[0][2]
    # a flag neither parser takes fails whatever the model is
    both = _findings("#!/bin/bash\nsglang serve Qwen/Qwen3-8B --random-input-len 10\n")
    assert [(c, s) for c, s, _ in both] == [("SL101", "error")]
    assert "it fails whatever the model is" in both[0][2]
    assert not _findings("#!/bin/bash\nsglang serve m --model-type diffusion --num-gpus 2\n")
    pinned = _findings("#!/bin/bash\nsglang serve m --model-type llm --num-gpus 2\n")
    assert [(c, s) for c, s, _ in pinned] == [("SL101", "error")]
    launch = _findings("#!/bin/bash\npython -m sglang.launch_server --model-path m --num-gpus 2\n")
    assert [(c, s) for c, s, _ in launch] == [("SL101", "error")]


def test_choices_computed_from_an_enum(p523):
    # choices=[m.name.lower() for m in _real_kv_hash_modes()] (server_args.py:391), the
    # function returning list(RealKvHashMode) (kernels/ops/kv_canary/consts.py)
    act = p523.option_index["--kv-canary-real-data"]
    assert act.choices == ["none", "partial", "all"]
    assert verdict(p523, "--kv-canary-real-data", "partial") == (True, 0)
    assert verdict(p523, "--kv-canary-real-data", "ALL") == (False, 2)


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_serve_needs_a_model_path_before_any_parser(version):
    # cli/utils.py get_model_path raises unless argv has --model-path X (0.5.23: also
    # --model X or a positional model) in exactly those spellings
    prof = profiles.load("sglang", version)
    for argv in (["--tp-size", "2"], ["--model-p", "m"]):
        res = sglang_argv.parse(prof, argv, entry="serve")
        assert not res.ok and res.exit_code == 1 and "--model-path is required" in res.error
    assert sglang_argv.parse(prof, ["--model-path=m"], entry="serve").ok
    assert sglang_argv.parse(prof, ["--model-path", "$M"], entry="serve").ok
    assert sglang_argv.parse(prof, ["--model", "m"], entry="serve").ok is (version == "0.5.23")
