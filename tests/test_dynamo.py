"""Dynamo worker profiles (built from ai-dynamo wheels) and the worker's argv split."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

from servelint import profiles
from servelint.builders.dynamo.builder import build_profile
from servelint.check import Options, check_paths
from servelint.engines.dynamo.worker import split_argv, targets
from servelint.model import Token

ARGS = """\
import argparse
from vllm.engine.arg_utils import AsyncEngineArgs
from dynamo.vllm.backend_args import VllmGroup


def parse_args(argv=None):
    spec = VllmGroup()
    parser = argparse.ArgumentParser(description="w", allow_abbrev=False)
    spec.add_arguments(parser)
    vllm_parser = argparse.ArgumentParser(add_help=False)
    AsyncEngineArgs.add_cli_args(vllm_parser)
    args, unknown = parser.parse_known_args(argv)
    return vllm_parser.parse_args(unknown)
"""
GROUP = """\
from enum import Enum
from dynamo.common.utils import add_argument, add_negatable_bool_argument


class Mode(Enum):
    PREFILL = "prefill"
    DECODE = "decode"


class VllmGroup:
    def add_arguments(self, parser):
        g = parser.add_argument_group("x")
        add_argument(g, flag_name="--disaggregation-mode", env_var="DYN_MODE", default=None,
                     help="", choices=["pd"] + [m.value for m in Mode])
        add_negatable_bool_argument(g, flag_name="--use-tok", env_var="DYN_TOK",
                                    default=False, help="")
        parser.add_argument("--version", action="version", version="1")
        if g is not None:
            legacy = (("--old-a", "DYN_A"), ("--old-b", "DYN_B"))
        for flag, env in legacy:
            add_argument(g, flag_name=flag, env_var=env, default=None, help="")
"""


def _wheel(tmp_path: Path) -> Path:
    path = tmp_path / "ai_dynamo-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("dynamo/vllm/__main__.py", "from dynamo.vllm.main import main\n")
        zf.writestr("dynamo/vllm/args.py", ARGS)
        zf.writestr("dynamo/vllm/backend_args.py", GROUP)
    return path


def test_builder_reads_the_worker_parser(tmp_path: Path) -> None:
    prof = build_profile(_wheel(tmp_path), "9.9.9")
    w = prof["workers"]["vllm"]
    assert w["parser"] == {
        "allow_abbrev": False,
        "source": "dynamo/vllm/args.py:8",
        "parse_known_args": True,
    }
    assert w["engine_parser"] == "vllm-engine-args"
    assert w["engine_parser_source"] == "dynamo/vllm/args.py:11"
    by = {a["option_strings"][0]: a for a in w["actions"]}
    assert by["--disaggregation-mode"]["choices"] == ["pd", "prefill", "decode"]
    assert by["--disaggregation-mode"]["source"] == "dynamo/vllm/backend_args.py:13"
    assert by["--use-tok"]["accepted"] == ["--use-tok", "--no-use-tok"]
    assert by["--version"]["kind"] == "version"
    # options added in a loop over a local table, one per row (ai-dynamo 1.4.0)
    assert by["--old-a"]["env_var"] == "DYN_A"
    assert by["--old-b"]["accepted"] == ["--old-b"]
    assert set(prof["workers"]) == {"vllm"}  # the wheel's only `python -m dynamo.X` entrypoint


def test_committed_profiles_carry_the_wheels_facts() -> None:
    """Spot checks against the ai-dynamo 1.3.1 and 0.8.0 wheels as read by hand."""
    w = profiles.load("dynamo", "1.3.1").data["workers"]
    disagg = next(
        a for a in w["vllm"]["actions"] if a["option_strings"] == ["--disaggregation-mode"]
    )
    assert disagg["choices"] == ["pd", "agg", "prefill", "decode", "encode"]
    assert disagg["source"] == "dynamo/vllm/backend_args.py:44"
    assert w["vllm"]["engine_parser_source"] == "dynamo/vllm/args.py:93"
    assert w["vllm"]["parser"]["allow_abbrev"] is False
    assert w["sglang"]["parser"]["allow_abbrev"] is True
    assert w["sglang"]["engine_parser"] == "sglang-server-args"
    assert w["trtllm"]["engine_parser"] is None
    old = profiles.load("dynamo", "0.8.0").data["workers"]["vllm"]
    assert not any("--disaggregation-mode" in a["accepted"] for a in old["actions"])
    assert any("--is-prefill-worker" in a["accepted"] for a in old["actions"])


def _toks(*texts: str) -> list[Token]:
    return [Token(t) for t in texts]


def test_split_consumes_dynamo_options_and_passes_the_rest() -> None:
    w = profiles.load("dynamo", "1.3.1").data["workers"]["vllm"]
    argv = _toks(
        "--model",
        "/m",
        "--request-plane",
        "tcp",
        "--kv-cache-dtype",
        "fp8",
        "--connector",
        "nixl",
        "lmcache",
        "--enforce-eager",
    )
    split = split_argv(w, argv)
    assert [argv[i].text for i in split.engine] == [
        "--model",
        "/m",
        "--kv-cache-dtype",
        "fp8",
        "--enforce-eager",
    ]
    # --connector takes nargs="*": both values are Dynamo's
    assert [argv[i].text for i, _, _ in split.dynamo] == [
        "--request-plane",
        "tcp",
        "--connector",
        "nixl",
        "lmcache",
    ]


def test_abbreviation_is_captured_only_where_allow_abbrev_is_on() -> None:
    ws = profiles.load("dynamo", "1.3.1").data["workers"]
    argv = _toks("--disagg-config-k", "prefill")
    got = split_argv(ws["sglang"], argv)
    assert got.dynamo[0][2] == "abbreviation of --disagg-config-key"
    assert split_argv(ws["vllm"], _toks("--request-pl", "tcp")).engine == [0, 1]


def test_release_targets() -> None:
    assert [(t.version, t.certain) for t in targets("1.3.1", "dynamo.version", None)] == [
        ("1.3.1", True)
    ]
    dev = targets("1.3.0.dev20260710", "dynamo.version", None)
    assert [(t.version, t.certain) for t in dev] == [("1.2.1", False), ("1.3.0.post1", False)]
    img = targets(None, "dynamo.install: false", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.1")
    assert [(t.version, t.certain) for t in img] == [("1.2.1", True)]
    assert not targets(None, "x", None)[0].certain


RECIPE = """\
dynamo: {version: "1.3.1", request_plane: REQUEST_PLANE}
model: {path: m, container: "lmsysorg/sglang:v0.5.9", precision: fp8}
resources: {gpu_type: b200, gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1,
            prefill_workers: 1, decode_workers: 1}
backend:
  type: sglang
  sglang_config:
    prefill: {tp-size: 8}
    decode: {tp-size: 8}
"""


def _check(tmp_path: Path, text: str):
    path = tmp_path / "recipe.yaml"
    path.write_text(textwrap.dedent(text))
    return check_paths([str(path)], Options()).findings


def test_worker_options_are_not_engine_flags_and_their_values_are_judged(tmp_path) -> None:
    ok = _check(tmp_path, RECIPE.replace("REQUEST_PLANE", "tcp"))
    assert not [f for f in ok if f.rule == "flag-unknown"]
    bad = _check(tmp_path, RECIPE.replace("REQUEST_PLANE", "http"))
    (f,) = [f for f in bad if f.rule == "dynamo-worker-flag"]
    assert f.severity.label == "error" and f.span.line == 1
    assert "rejects --request-plane 'http' in ai-dynamo 1.3.1: choose from tcp, nats" in f.message
    assert f.evidence.startswith("dynamo/common/configuration/groups/runtime_args.py:")
    assert f.renderings == ["decode", "prefill"] or set(f.renderings) == {"decode", "prefill"}


def test_a_release_without_a_wheel_is_judged_as_its_post_release() -> None:
    (t,) = targets("1.3.0", "dynamo.version", None)
    assert (t.version, t.certain) == ("1.3.0.post1", False)


FRONTEND = """\
dynamo: {version: "DYN"}
model: {path: m, container: "lmsysorg/sglang:v0.5.9", precision: fp8}
resources: {gpu_type: b200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
frontend:
  type: dynamo
  args: {router-mode: kv, router-session-affinity-ttl-secs: 900}
backend: {type: sglang}
"""


def test_frontend_args_are_judged_against_the_frontend_parser(tmp_path) -> None:
    """ai-dynamo 1.2.1 has no --router-session-affinity-ttl-secs (added by 1.3.0.post1 in
    dynamo/common/configuration/groups/router_args.py) and its frontend exits on leftover
    arguments (dynamo/frontend/main.py:150-152)."""
    old = [
        f
        for f in _check(tmp_path, FRONTEND.replace("DYN", "1.2.1"))
        if f.rule == "dynamo-worker-flag"
    ]
    assert [(f.severity.label, f.span.line, f.evidence) for f in old] == [
        ("error", 6, "dynamo/frontend/main.py:152")
    ]
    assert "no option --router-session-affinity-ttl-secs in ai-dynamo 1.2.1" in old[0].message
    new = _check(tmp_path, FRONTEND.replace("DYN", "1.3.1"))
    assert not [f for f in new if f.severity.label == "error"]


def test_an_option_of_an_older_worker_is_no_engine_error_when_no_release_is_pinned(
    tmp_path,
) -> None:
    """`--is-decode-worker` is dynamo.vllm's own option up to ai-dynamo 1.3.x (its profile)
    and gone in 1.4.0: with no Dynamo release pinned it never reaches vLLM's parser on the
    releases that define it, so vLLM's SL101 "fails on every release" would be false."""
    assert any(
        "--is-decode-worker" in str(profiles.load("dynamo", v).data["workers"]["vllm"])
        for v in profiles.available("dynamo")
    )
    script = tmp_path / "worker.sh"
    script.write_text(
        "#!/bin/bash\npython3 -m dynamo.vllm --model Qwen/Qwen3-8B --is-decode-worker\n"
    )
    report = check_paths([str(script)], Options())
    assert not [f for f in report.findings if f.code == "SL101"]
