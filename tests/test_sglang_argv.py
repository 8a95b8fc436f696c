"""sglang_argv.parse: argparse emulation over a profile built from the fixture wheel."""

from __future__ import annotations

import pytest
from test_sglang_builder import make_wheel

from servelint.builders.sglang import parser as sglang_parser
from servelint.engines.sglang import argv as sglang_argv
from servelint.profiles import Profile


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    src = make_wheel(tmp_path_factory.mktemp("w"), "add_argument")
    data = {"format": 1, "engine": "sglang", "version": "0.0.1"}
    data.update(sglang_parser.extract(src, data))
    return Profile(data)


def parse(profile, *argv):
    return sglang_argv.parse(profile, list(argv))


def test_accepts_and_reports_options(profile):
    res = parse(profile, "--model", "m", "--tp-size=2", "--trust-remote-code")
    assert res.ok, res.error
    by = {o.action.dest: o for o in res.options}
    assert by["model_path"].value == "m" and by["model_path"].value_index == 1
    assert by["tp_size"].value == "2" and by["tp_size"].value_index is None


def test_prefix_and_ambiguity(profile):
    res = parse(profile, "--model-path", "m", "--mem-frac", "0.8")
    assert res.ok and res.options[-1].abbreviated and res.options[-1].canonical == \
        "--mem-fraction-static"
    res = parse(profile, "--model-path", "m", "--tensor", "2")
    assert res.ok and res.options[-1].action.dest == "tp_size"
    bad = parse(profile, "--model-path", "m", "--pre", "x")
    assert not bad.ok and "ambiguous option: --pre could match" not in (bad.error or "")
    amb = parse(profile, "--model-path", "m", "--t", "x")
    assert not amb.ok and amb.error.startswith("ambiguous option: --t could match")


def test_unrecognized_lists_every_extra(profile):
    res = parse(profile, "--model-path", "m", "--tp_size", "2", "--nope")
    assert not res.ok and res.error == "unrecognized arguments: --tp_size 2 --nope"
    assert res.unrecognized_indices == [2, 3, 4] and res.exit_code == 2


def test_value_errors(profile):
    res = parse(profile, "--model-path", "m", "--attention-backend", "torch_sdpa")
    assert res.error.startswith("argument --attention-backend: invalid choice: 'torch_sdpa'")
    assert res.error_index == 3
    assert parse(profile, "--model-path", "m", "--tp-size", "two").error == \
        "argument --tensor-parallel-size/--tp-size: invalid int value: 'two'"
    assert parse(profile, "--model-path", "m", "--tp-size").error == \
        "argument --tensor-parallel-size/--tp-size: expected one argument"
    assert parse(profile, "--model-path", "m", "--cuda-graph-bs").error == \
        "argument --cuda-graph-bs: expected at least one argument"
    assert parse(profile, "--model-path", "m", "--trust-remote-code=1").error == \
        "argument --trust-remote-code: ignored explicit argument '1'"
    # a negative number is a value, not an option
    assert parse(profile, "--model-path", "m", "--mem-fraction-static", "-0.5").ok


def test_required_and_store_true_value(profile):
    assert parse(profile, "--tp-size", "2").error == \
        "the following arguments are required: --model-path/--model"
    res = parse(profile, "--model-path", "m", "--trust-remote-code", "true")
    assert res.error == "unrecognized arguments: true"


def test_deprecated_actions(profile):
    warn = parse(profile, "--model-path", "m", "--enable-ep-moe")
    assert warn.ok and warn.warnings and "--ep-size" in warn.warnings[0]
    err = parse(profile, "--model-path", "m", "--enable-gone")
    assert not err.ok and err.error == "--enable-gone was removed, use --new." and err.exit_code == 2


def test_config_file(profile, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("tp-size: 4\ntrust-remote-code: false\ncuda-graph-bs: [1, 2]\n")
    res = parse(profile, "--model-path", "m", "--config", "c.yaml")
    assert res.ok, res.error
    by = {o.action.dest: o for o in res.options}
    assert by["tp_size"].value == "4" and by["tp_size"].from_config
    assert by["tp_size"].index == 2  # mapped back to the --config token
    assert "trust_remote_code" not in by  # false store_true keys are dropped
    assert by["cuda_graph_bs"].value == ["1", "2"]
    assert parse(profile, "--model-path", "m", "--config", "c.json").exit_code == 1
    # absent here says nothing of the launch machine: not an error, even for the model path
    # the file may hold; the rest of the argv is still judged
    assert parse(profile, "--model-path", "m", "--config", "x.yaml").ok
    assert parse(profile, "--config", "x.yaml", "--tp-size", "2").ok
    assert not parse(profile, "--config", "x.yaml", "--tp-size", "two").ok


def test_sglang_serve_entry(profile):
    profile.rules.update(serve_positional_model=True, serve_model_type_selector=True)
    try:
        res = sglang_argv.parse(profile, ["m", "--model-type", "llm", "--tp-size", "2"],
                                entry="serve")
        assert res.ok, res.error
        by = {o.action.dest: o for o in res.options}
        assert by["model_path"].value == "m" and by["model_path"].value_index == 0
        assert by["tp_size"].index == 3
    finally:
        profile.rules.update(serve_positional_model=False, serve_model_type_selector=False)
    assert not sglang_argv.parse(profile, ["m"], entry="serve").ok


def test_human_readable_int(profile):
    act = profile.option_index["--max-prefill-tokens"]
    assert act.raw["type"] == "human_int" and act.raw["type_name"] == "human_readable_int"
    for ok in ("4096", "16k", "1Mi", "2.5k"):
        assert parse(profile, "--model-path", "m", "--max-prefill-tokens", ok).ok, ok
    bad = parse(profile, "--model-path", "m", "--max-prefill-tokens", "lots")
    assert bad.error.startswith("argument --max-prefill-tokens: Invalid integer value: 'lots'.")
