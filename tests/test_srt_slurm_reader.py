"""Golden tests for each srt-slurm key form (srtctl's ``_config_to_cli_args`` and friends)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from servelint.sources.srt_slurm import read_recipe

RECIPE = """\
name: t
model: {path: dsr1, container: "lmsysorg/sglang:v0.5.9", precision: fp8}
dynamo: {wheel: "1.3.1", install: true}
environment: {SHARED: global}
resources: {gpu_type: b200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
backend:
  type: sglang
  aggregated_environment: {SHARED: role, ROLE_ONLY: "1"}
  sglang_config:
    aggregated:
      tp_size: 8
      enable-metrics: true
      disable-radix-cache: false
      chunked-prefill-size: null
      cuda-graph-bs: [1, 2, 4]
      json-model-override-args: '{"a": 1}'
      speculative-config: {method: mtp}
      mem-fraction-static: 0.90
      enable-dp-attention: on
"""


def _read(tmp_path: Path, text: str, selector: str | None = None):
    path = tmp_path / "r.yaml"
    path.write_text(textwrap.dedent(text))
    return read_recipe(str(path), selector=selector)


def _workers(result) -> list:
    return [s for s in result.launches if s.context["role"] != "frontend"]


def _argv(spec) -> list[str]:
    return [t.text for t in spec.argv]


def test_key_forms_render_as_srtctl_does(tmp_path: Path) -> None:
    (spec,) = _workers(_read(tmp_path, RECIPE))
    argv = _argv(spec)
    tail = argv[argv.index("tcp") + 1 :]
    assert tail == [
        "--cuda-graph-bs",
        "1",
        "2",
        "4",  # a list: the flag, then each item
        "--enable-dp-attention",  # YAML 1.1 `on` is true: a bare flag
        "--enable-metrics",  # true: a bare flag; false and null give nothing
        "--json-model-override-args",
        '{"a": 1}',  # a JSON string, verbatim
        "--mem-fraction-static",
        "0.9",  # Python's str() of the float
        "--speculative-config",
        "{'method': 'mtp'}",  # a YAML map: str(dict), not JSON
        "--tp-size",
        "8",  # `_` -> `-`; keys sorted
    ]
    assert spec.entrypoint == "python3 -m dynamo.sglang" and spec.engine == "sglang"
    assert spec.image == "lmsysorg/sglang:v0.5.9" and spec.gpu == "b200"
    assert spec.context["dynamo_release"] == "1.3.1"


def test_spans_on_keys_and_values(tmp_path: Path) -> None:
    (spec,) = _workers(_read(tmp_path, RECIPE))
    by_text = {t.text: t for t in spec.argv}
    assert (by_text["--tp-size"].span.line, by_text["--tp-size"].span.column) == (11, 7)
    assert (by_text["8"].span.line, by_text["8"].span.column) == (11, 16)
    assert (by_text["0.9"].span.line, by_text["0.9"].span.column) == (18, 28)
    assert [t.span.line for t in spec.argv if t.text in {"1", "2", "4"}] == [15, 15, 15]


def test_role_env_then_global_env(tmp_path: Path) -> None:
    (spec,) = _workers(_read(tmp_path, RECIPE))
    env = {e.name: e for e in spec.env}
    assert env["SHARED"].value == "global" and env["SHARED"].span.line == 4
    assert env["ROLE_ONLY"].value == "1"


OVERRIDES = """\
base:
  name: b
  resources: {gpu_type: gb200, gpus_per_node: 4, agg_nodes: 1, agg_workers: 1}
  backend:
    type: vllm
    connector: null
    vllm_config:
      aggregated: {max-num-seqs: 8, tensor-parallel-size: 4}
override_big:
  backend:
    vllm_config:
      aggregated: {max-num-seqs: 64}
zip_override_sweep:
  backend:
    vllm_config:
      aggregated: {max-num-seqs: [16, 32], tensor-parallel-size: [4]}
"""


def _seqs(result) -> list[tuple[str, str]]:
    out = []
    for spec in _workers(result):
        argv = _argv(spec)
        out.append((spec.context["recipe_name"], argv[argv.index("--max-num-seqs") + 1]))
    return out


def test_override_selectors(tmp_path: Path) -> None:
    assert _seqs(_read(tmp_path, OVERRIDES)) == [
        ("b_big", "64"),
        ("b_sweep_0", "16"),
        ("b_sweep_1", "32"),
    ]
    assert _seqs(_read(tmp_path, OVERRIDES, "override_big")) == [("b_big", "64")]
    assert _seqs(_read(tmp_path, OVERRIDES, "zip_override_sweep[1]")) == [("b_sweep_1", "32")]
    assert _seqs(_read(tmp_path, OVERRIDES, "base")) == [("b", "8")]
    assert len(_workers(_read(tmp_path, OVERRIDES, "*sweep"))) == 2
    missing = _read(tmp_path, OVERRIDES, "zip_override_sweep[2]")
    assert not missing.launches and "out of range" in missing.problems[0].message


def test_override_value_keeps_the_override_span(tmp_path: Path) -> None:
    (spec,) = _workers(_read(tmp_path, OVERRIDES, "override_big"))
    value = next(
        t for t, n in zip(spec.argv, spec.argv[1:], strict=False) if t.text == "--max-num-seqs"
    )
    assert value.span.line == 12  # the key inside override_big


def test_defaults_srtctl_applies(tmp_path: Path) -> None:
    text = """\
    resources: {gpu_type: gb200, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1,
                decode_workers: 1}
    backend:
      vllm_config: {}
    """
    result = _read(tmp_path, text)
    # no backend.type: srtctl's BackendConfigField reads SGLang
    assert {s.engine for s in result.launches} == {"sglang"}
    vllm = _read(tmp_path, text.replace("vllm_config: {}", "type: vllm"))
    argv = _argv(vllm.launches[0])
    # VLLMProtocol.connector defaults to "nixl" -> a --kv-transfer-config
    assert (
        argv[argv.index("--kv-transfer-config") + 1]
        == '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'
    )
    assert vllm.launches[0].context["dynamo_release_how"].startswith("srtctl's default")


def test_bad_recipes_are_problems_not_tracebacks(tmp_path: Path) -> None:
    assert _read(tmp_path, "backend: [").problems[0].kind == "parse-error"
    assert _read(tmp_path, "- a\n").problems
    odd = _read(tmp_path, "backend: {type: tensorflow}\nresources: {agg_workers: 1}\n")
    assert not odd.launches and "tensorflow" in odd.problems[0].message


def test_identity_frameworks_names_the_dynamo_of_a_source_build(tmp_path: Path) -> None:
    text = """\
    identity: {frameworks: {dynamo: "1.3.0", vllm: "0.23.0", sglang: nightly-dev-x}}
    dynamo: {hash: abc123, install: true}
    resources: {gpu_type: gb200, agg_nodes: 1, agg_workers: 1}
    backend: {type: vllm}
    """
    (spec,) = _workers(_read(tmp_path, text))
    assert spec.context["dynamo_release"] == "1.3.0"
    assert spec.context["dynamo_release_how"].startswith(
        "identity.frameworks.dynamo, as dynamo.hash abc123"
    )
    assert spec.context["identity_vllm"] == "0.23.0" and "identity_sglang" not in spec.context


def test_render_command_prints_each_roles_worker_command(tmp_path: Path, capsys) -> None:
    from servelint.cli import main

    path = tmp_path / "r.yaml"
    path.write_text(RECIPE)
    assert main(["render", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# aggregated\n# image: lmsysorg/sglang:v0.5.9\n# ai-dynamo: 1.3.1\n")
    assert "SHARED=global ROLE_ONLY=1 python3 -m dynamo.sglang --model-path /model" in out
    assert main(["render", str(path), "--selector", "override_x"]) == 2


def test_dynamo_frontend_launch_keeps_args_in_order(tmp_path: Path) -> None:
    text = (
        RECIPE
        + """\
frontend:
  type: dynamo
  args: {router-mode: kv, no-kv-events: true, skip: false, router_temperature: 0.5}
"""
    )
    (front,) = [s for s in _read(tmp_path, text).launches if s.context["role"] == "frontend"]
    assert front.entrypoint == "python3 -m dynamo.frontend"
    # srtctl's DynamoFrontend.get_frontend_args_list: dict order, keys as written
    assert _argv(front) == [
        "--http-port=<frontend-port>",
        "--router-mode",
        "kv",
        "--no-kv-events",
        "--router_temperature",
        "0.5",
    ]


def test_identity_frameworks_pins_the_engine_when_the_container_does_not(tmp_path: Path) -> None:
    text = RECIPE + "identity:\n  frameworks: {dynamo: 1.3.1, sglang: 0.5.17}\n"
    nightly = text.replace("lmsysorg/sglang:v0.5.9", "lmsysorg/sglang:nightly-dev-20260805")
    (spec,) = _workers(_read(tmp_path, nightly))
    assert (spec.release, spec.release_span.line) == ("0.5.17", 21)
    assert spec.context["release_from"] == "identity.frameworks.sglang"
    # the container names 0.5.9: it is what runs; the declaration that differs is reported
    result = _read(tmp_path, text)
    (spec,) = _workers(result)
    assert spec.release is None
    (problem,) = [p for p in result.problems if "identity.frameworks" in p.message]
    assert problem.span.line == 21 and "is sglang 0.5.9: the job runs the container" in (
        problem.message
    )
    # a dev build names no profiled release: the image's own range rules judge it
    dev = nightly.replace("sglang: 0.5.17", "sglang: 0.5.18.dev3+g1")
    assert _workers(_read(tmp_path, dev))[0].release is None


def test_setup_script_installs_join_the_workers(tmp_path: Path) -> None:
    # srtctl runs `bash /configs/<setup_script>` before each worker (worker_stage.py
    # _build_worker_preamble): its pip installs are in the container, its exports are not
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "deps.sh").write_text(
        "export NOT_FOR_WORKER=1\npip install 'fastokens==0.1.2'\n"
    )
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (spec,) = _workers(_read(recipes, RECIPE + "setup_script: deps.sh\n"))
    assert [(i.requirement, i.span.line, i.from_context) for i in spec.installs] == [
        ("fastokens==0.1.2", 2, True)
    ]
    assert "NOT_FOR_WORKER" not in {e.name for e in spec.env}
    missing = _read(recipes, RECIPE + "setup_script: other.sh\n")
    (problem,) = [p for p in missing.problems if "setup_script" in p.message]
    assert problem.kind == "unsupported" and "srtctl runs /configs/other.sh" in problem.message
