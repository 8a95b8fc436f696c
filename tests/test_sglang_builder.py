"""SGLang extractors on small fixture wheels (tests/data/sglang/<shape>/) built in tmp."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint.builders.sglang import env as sglang_env
from servelint.builders.sglang import facts as sglang_facts
from servelint.builders.sglang import parser as sglang_parser
from servelint.builders.wheel import WheelSource

DATA = Path(__file__).parent / "data" / "sglang"
METADATA = """Metadata-Version: 2.1
Name: sglang
Version: 0.0.1
Requires-Dist: fastapi
Requires-Dist: torch==2.9.1; sys_platform == "linux"
Requires-Dist: mlx; sys_platform == "darwin"
Requires-Dist: fastokens>=0.3.2; extra == "fastokens"
"""


def make_wheel(tmp_path: Path, shape: str) -> WheelSource:
    wheel = tmp_path / f"sglang-0.0.1-{shape}.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in (DATA / shape).rglob("*.py"):
            zf.write(path, path.relative_to(DATA / shape).as_posix())
        zf.writestr("sglang-0.0.1.dist-info/METADATA", METADATA)
    return WheelSource(wheel)


@pytest.fixture
def add_argument(tmp_path):
    return sglang_parser.extract(make_wheel(tmp_path, "add_argument"), {})["parser"]


@pytest.fixture
def namespaces(tmp_path):
    return sglang_parser.extract(make_wheel(tmp_path, "namespaces"), {})["parser"]


def by_opt(parser: dict) -> dict[str, dict]:
    return {o: a for a in parser["actions"] for o in a["accepted"]}


def test_add_argument_shape(add_argument):
    assert add_argument["shape"] == "add_argument"
    opts = by_opt(add_argument)
    assert opts["--model"]["dest"] == "model_path" and opts["--model"]["required"]
    assert opts["--tp-size"]["dest"] == "tp_size" and opts["--tp-size"]["type"] == "int"
    assert opts["--tp-size"]["default"] == "1"
    # module-level append is applied; [*A, "x"] is resolved
    assert opts["--attention-backend"]["choices"] == ["triton", "fa3", "aiter"]
    assert opts["--prefill-attention-backend"]["choices"] == ["triton", "fa3", "flashinfer"]
    # registry keys from another module's class attribute
    assert opts["--reasoning-parser"]["choices"] == ["qwen3", "deepseek-r1"]
    assert opts["--cuda-graph-bs"]["nargs"] == "+"
    assert opts["--trust-remote-code"]["kind"] == "store_true"
    assert add_argument["rules"]["config_trigger"] == "exact_token"
    assert add_argument["allow_abbrev"] is True and add_argument["argparse_prog"] is None


def test_deprecated_action_warning_vs_error(add_argument):
    opts = by_opt(add_argument)
    warn, err = opts["--enable-ep-moe"], opts["--enable-gone"]
    assert warn["deprecated"] and not warn["deprecated_error"]
    assert "--ep-size" in warn["deprecated_message"]
    assert warn["kind"] == "store_const" and warn["nargs"] == 0
    assert err["deprecated_error"] and err["deprecated_message"] == "--enable-gone was removed, use --new."


def test_namespace_fields(namespaces):
    assert namespaces["shape"] == "namespaces"
    assert namespaces["argparse_prog"] == "sglang serve"
    opts = by_opt(namespaces)
    assert opts["--model"]["dest"] == "model_path" and opts["--model-path"]["required"]
    assert opts["--tensor-parallel-size"]["dest"] == "tp_size"
    assert "--tp-size" in opts and "--internal" not in opts and "--plain" not in opts
    assert opts["--dtype"]["choices"] == ["auto", "bfloat16"]
    assert opts["--enable-x"]["kind"] == "store_true"
    assert opts["--cuda-graph-bs"]["nargs"] == "+" and opts["--cuda-graph-bs"]["type"] == "int"
    assert opts["--tokenizer-backend"]["choices"] == ["huggingface", "fastokens"]
    dep = opts["--cuda-graph-max-bs"]
    assert dep["deprecated"] and "--cuda-graph-max-bs-decode" in dep["deprecated_message"]


def test_dynamic_choices(namespaces):
    opts = by_opt(namespaces)
    # env-dependent addition is kept (superset: never a false "invalid choice")
    assert set(opts["--sampling-backend"]["choices"]) == {"flashinfer", "pytorch", "token_oracle"}
    assert opts["--sampling-backend"].get("conditional") is None
    # registry helper: the last return, with its in-function import
    assert opts["--tool-call-parser"]["choices"] == ["auto", "qwen", "glm"]
    assert opts["--enable-dp-attention"]["deprecated"]
    assert opts["--enable-dp-attention"]["kind"] == "store_const"


def test_env_registry(tmp_path):
    env = sglang_env.extract(make_wheel(tmp_path, "add_argument"), {})["env"]
    reg = env["registry"]
    assert reg["SGLANG_USE_X"]["type"] == "bool" and reg["SGLANG_USE_X"]["default"] == "False"
    assert reg["SGLANG_USE_X"]["values"] == ["0", "1", "false", "true"]
    assert reg["SGLANG_CHUNK"]["type"] == "int" and reg["SGLANG_CHUNK"]["default"] == "16"
    assert reg["SGLANG_OLD"]["replacement"] == "SGLANG_NEW"
    assert reg["SGLANG_MOVED"]["replacement"] == "SGLANG_CHUNK"
    assert env["removed_hints"] == {"SGLANG_GONE": "Please use '--gone-flag' instead."}
    assert env["unknown_warning"] is False
    assert env["prefix_rewrite"]["from"] == "SGL_"


def test_image_packages_from_requires_dist(tmp_path):
    facts = sglang_facts.extract(make_wheel(tmp_path, "add_argument"), {"parser": {}})
    pkgs = facts["image"]["packages"]
    assert pkgs["torch"]["specifier"] == "==2.9.1" and pkgs["torch"]["inferred"]
    assert "mlx" not in pkgs and "fastokens" not in pkgs
    assert facts["extras"]["fastokens"] == ["fastokens>=0.3.2"]
    assert facts["image"]["entrypoint"] is None and facts["image"]["complete"] is True
