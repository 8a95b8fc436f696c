"""vLLM fact extractors (env, late_values, gates, image, backends).

Always-on: a miniature wheel built from tests/data/vllm_facts/mini, and the committed profiles
(skipped when absent). Real wheels in /tmp/wheels/vllm and the oracle dumps in
/work/shared/tools/oracle/out are used when present.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from servelint import profiles
from servelint.builders.vllm import backends as vllm_backends
from servelint.builders.vllm import env as vllm_env
from servelint.builders.vllm import gates as vllm_gates
from servelint.builders.vllm import image as vllm_image
from servelint.builders.vllm import values as vllm_values
from servelint.builders.wheel import WheelSource

MINI = Path(__file__).parent / "data" / "vllm_facts" / "mini"
WHEELS = Path("/tmp/wheels/vllm")
ORACLE = Path("/work/shared/tools/oracle/out")


# ------------------------------------------------------------------ miniature wheel

@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    path = tmp_path_factory.mktemp("mini") / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for f in sorted(MINI.rglob("*.py")):
            zf.write(f, f.relative_to(MINI).as_posix())
        zf.write(MINI / "METADATA", "vllm-0.0.1.dist-info/METADATA")
    return WheelSource(path)


def test_mini_env_types_defaults_choices(mini: WheelSource) -> None:
    env = vllm_env.extract(mini, {})["env"]
    reg = env["registry"]
    assert reg["VLLM_USE_FASTOKENS"]["type"] == "bool"
    assert reg["VLLM_USE_FASTOKENS"]["default"] == "False"
    assert reg["VLLM_PORT"]["type"] == "int" and reg["VLLM_PORT"]["default"] == "8000"
    assert reg["VLLM_LEVEL"]["choices"] == ["high", "low"]
    assert reg["VLLM_LEVEL"]["case_sensitive"] is False
    assert reg["VLLM_OLD_KNOB"]["replacement"] == "Use --new-knob."
    assert "v0.2" in reg["VLLM_OLD_KNOB"]["deprecated"]
    assert reg["VLLM_USE_FASTOKENS"]["source"].startswith("vllm/envs.py:")
    assert env["read_unregistered"] == ["VLLM_CPU_SIM_FLAG"]
    assert env["unknown_warning"] is True


def test_mini_tokenizer_modes_and_gate(mini: WheelSource) -> None:
    profile: dict[str, Any] = vllm_values.extract(mini, {})
    modes = profile["late_values"]["tokenizer_mode"]
    assert set(modes["values"]) == {"hf", "fastokens", "slow"}
    assert modes["targets"] == ["tokenizer_mode"]
    assert modes["stage"] == "renderer"
    gates = vllm_gates.extract(mini, profile)["gates"]
    env_gate = [g for g in gates if g["trigger"] and g["trigger"]["kind"] == "env"]
    assert env_gate and env_gate[0]["trigger"]["name"] == "VLLM_USE_FASTOKENS"
    assert env_gate[0]["package"] == "fastokens"
    assert env_gate[0]["specifier"] == ">=0.2.0"
    assert env_gate[0]["source"].startswith("vllm/tokenizers/fastokens.py:")


def test_mini_image_marker_evaluation(mini: WheelSource) -> None:
    packages = vllm_image.extract(mini, {})["image"]["packages"]
    assert packages["tokenspeed-mla"] == {"specifier": "==0.1.2", "source": "requires-dist"}
    assert "pywin32" not in packages  # marker false on linux
    assert "tensorizer" not in packages  # extra only
    assert packages["numpy"]["source"] == "requires-dist"
    assert all(p.get("inferred") for p in packages.values() if p["source"] == "dockerfile")


# ------------------------------------------------------------------ real wheels

def _wheel(version: str) -> WheelSource:
    hits = sorted(WHEELS.glob(f"vllm-{version}-*.whl"))
    if not hits:
        pytest.skip(f"wheel vllm {version} not present")
    return WheelSource(hits[0])


@pytest.fixture(scope="module")
def facts() -> Any:
    cache: dict[tuple[str, str], dict[str, Any]] = {}

    def get(version: str, *sections: str) -> dict[str, Any]:
        key = (version, ",".join(sections))
        if key not in cache:
            src = _wheel(version)
            profile: dict[str, Any] = {}
            for mod in (vllm_env, vllm_values, vllm_gates, vllm_image, vllm_backends):
                name = mod.__name__.rsplit(".", 1)[-1]
                if name.replace("vllm_", "") in sections:
                    profile.update(mod.extract(src, profile))
            cache[key] = profile
        return cache[key]
    return get


def test_0_21_0_tokenspeed_and_fastokens(facts: Any) -> None:
    late = facts("0.21.0", "values", "backends")
    assert "TOKENSPEED_MLA" in late["late_values"]["attention_backend"]["values"]
    assert "TOKENSPEED_MLA" in late["late_values"]["mla_prefill_backend"]["values"]
    assert "attention_config.mla_prefill_backend" in \
        late["late_values"]["mla_prefill_backend"]["targets"]
    assert "fastokens" in late["late_values"]["tokenizer_mode"]["values"]
    ts = late["backends"]["TOKENSPEED_MLA"]
    assert ts["compute_capability"]["majors"] == [10]
    assert "fp8" in ts["kv_cache_dtypes"]


def test_0_18_0_ray_gate(facts: Any) -> None:
    gates = facts("0.18.0", "values", "gates")["gates"]
    assert any(g["trigger"] == {"kind": "option", "dest": "distributed_executor_backend",
                                "value": "ray"} and g["package"] == "ray" for g in gates)


def test_0_22_0_has_no_fastokens_mode(facts: Any) -> None:
    late = facts("0.22.0", "values")["late_values"]
    assert "fastokens" not in late["tokenizer_mode"]["values"]
    assert "hf" in late["tokenizer_mode"]["values"]


def test_0_27_1_fastokens_env_gate_and_image(facts: Any) -> None:
    prof = facts("0.27.1", "values", "gates", "image")
    gate = [g for g in prof["gates"] if g["trigger"] == {
        "kind": "env", "name": "VLLM_USE_FASTOKENS", "value": "truthy"}]
    assert gate and gate[0]["package"] == "fastokens" and gate[0]["specifier"] == ">=0.2.0"
    assert gate[0]["source"].startswith("vllm/tokenizers/fastokens.py:")
    suffix = [g for g in prof["gates"] if g["trigger"] == {
        "kind": "config", "path": "speculative_config.method", "value": "suffix"}]
    assert suffix and suffix[0]["package"] == "arctic-inference"
    tensorizer = [g for g in prof["gates"] if g["trigger"] == {
        "kind": "option", "dest": "load_format", "value": "tensorizer"}]
    assert tensorizer and tensorizer[0]["package"] == "tensorizer"
    packages = prof["image"]["packages"]
    assert "tokenspeed-mla" in packages and "fastokens" not in packages
    tool = prof["late_values"]["tool_call_parser"]
    assert tool["only_with"] == ["enable_auto_tool_choice"] and tool["stage"] == "api_args"


@pytest.mark.slow
def test_0_21_0_tokenizer_mode_gate(facts: Any) -> None:
    prof = facts("0.21.0", "values", "gates")
    gate = [g for g in prof["gates"] if g["trigger"] == {
        "kind": "option", "dest": "tokenizer_mode", "value": "fastokens"}]
    assert gate and gate[0]["package"] == "fastokens"


# ------------------------------------------------------------------ oracle ground truth

ORACLE_VERSIONS = ["0.11.0", "0.21.0", "0.27.1", "0.33.0"]
ENUM_SETS = {"AttentionBackendEnum": "attention_backend", "_Backend": "attention_backend",
             "MLAPrefillBackendEnum": "mla_prefill_backend", "MambaBackendEnum": "mamba_backend"}


def _oracle(version: str, name: str) -> Any:
    path = ORACLE / version / name
    if not path.is_file():
        pytest.skip(f"oracle output {path} absent")
    return json.loads(path.read_text())


@pytest.mark.parametrize("version", ORACLE_VERSIONS)
def test_enums_match_oracle(version: str, facts: Any) -> None:
    enums = _oracle(version, "enums.json")
    late = facts(version, "values")["late_values"]
    for qual, body in enums.items():
        set_name = ENUM_SETS.get(qual.rsplit(".", 1)[-1])
        if set_name is None:
            continue
        assert late[set_name]["values"] == body["names"], qual


@pytest.mark.parametrize("version", ORACLE_VERSIONS)
def test_env_registry_matches_oracle(version: str, facts: Any) -> None:
    truth = _oracle(version, "envs.json")
    env = facts(version, "env")["env"]
    reg = env["registry"]
    assert set(reg) == set(truth["variables"])
    assert env["unknown_warning"] == truth["has_validate_environ"]
    for name, var in truth["variables"].items():
        if var.get("choices") is not None and reg[name]["choices"] is not None:
            assert reg[name]["choices"] == var["choices"], name
            assert reg[name]["case_sensitive"] == var.get("case_sensitive", True), name
        if reg[name]["type"] == "bool" and reg[name]["default"] is not None \
                and isinstance(var.get("default"), bool):
            assert reg[name]["default"] == str(var["default"]), name


# argv case id -> (late_values set, target) whose stage the oracle verdict fixes
STAGE_CASES = {
    "tokenizer-mode-unknown-nope": ("tokenizer_mode", "tokenizer_mode"),
    "quantization-unknown": ("quantization", "quantization"),
    "attn-backend-unknown-NOPE": ("attention_backend", "attention_backend"),
    "attn-config-dotted-backend-unknown": ("attention_backend", "attention_config.backend"),
    "attn-config-dotted-mla-prefill-NOPE": ("mla_prefill_backend",
                                            "attention_config.mla_prefill_backend"),
    "mamba-backend-unknown": ("mamba_backend", "mamba_backend"),
    "reasoning-parser-unknown": ("reasoning_parser", "reasoning_parser"),
    "tool-parser-unknown": ("tool_call_parser", "tool_call_parser"),
    "speculative-config-json": ("speculative_method", "speculative_config.method"),
}


@pytest.mark.parametrize("version", ORACLE_VERSIONS)
def test_stages_match_oracle(version: str, facts: Any) -> None:
    verdicts = {r["id"]: r for r in _oracle(version, "checks_deep.json")["results"]}
    late = facts(version, "values")["late_values"]
    checked = 0
    for case, (set_name, target) in STAGE_CASES.items():
        entry = late.get(set_name)
        verdict = verdicts.get(case)
        if not entry or not verdict or target not in entry["targets"]:
            continue
        stage = (entry.get("target_stages") or {}).get(target, entry["stage"])
        assert verdict["rejected_at"] == stage, (case, target)
        checked += 1
    assert checked or version == "0.11.0"


# ------------------------------------------------------------------ committed profiles

def _committed(version: str, section: str) -> Any:
    prof = profiles.load("vllm", version)
    if prof is None or section not in prof.data:
        pytest.skip(f"no committed vllm {version} profile with {section}")
    return prof


def test_committed_0_21_0() -> None:
    prof = _committed("0.21.0", "late_values")
    assert "TOKENSPEED_MLA" in prof.late_values["attention_backend"]["values"]
    assert "TOKENSPEED_MLA" in prof.late_values["mla_prefill_backend"]["values"]
    assert "fastokens" in prof.late_values["tokenizer_mode"]["values"]
    found = prof.late_for("attention_config.mla_prefill_backend")
    assert found and found[0] == "mla_prefill_backend"


def test_committed_0_22_0() -> None:
    prof = _committed("0.22.0", "late_values")
    assert "fastokens" not in prof.late_values["tokenizer_mode"]["values"]


def test_committed_0_27_1() -> None:
    prof = _committed("0.27.1", "gates")
    assert any(g["trigger"] == {"kind": "env", "name": "VLLM_USE_FASTOKENS", "value": "truthy"}
               and g["package"] == "fastokens" and g["specifier"] == ">=0.2.0"
               for g in prof.gates)
    assert "tokenspeed-mla" in prof.image_packages()
    assert "fastokens" not in prof.image_packages()
