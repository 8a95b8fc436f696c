"""The TensorRT-LLM builder reads a source tree with ast (tests/data/trtllm_tree is synthetic)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from servelint.builders.trtllm.builder import build, build_profile
from servelint.builders.trtllm.source import TreeSource

TREE = Path(__file__).parent / "data" / "trtllm_tree"


@pytest.fixture(scope="module")
def profile() -> dict:
    return build_profile(TreeSource(TREE), {"repo": "example/repo", "commit": "0" * 40})


def _action(profile: dict, dest: str) -> dict:
    return next(a for a in profile["parser"]["actions"] if a["dest"] == dest)


def test_version_and_provenance(profile: dict) -> None:
    assert profile["version"] == "9.9.0rc1"
    prov = profile["provenance"]
    assert prov["repo"] == "example/repo" and prov["package_files"] == 8
    assert "tensorrt_llm/commands/serve.py" in prov["files_read"]
    assert len(prov["tree_sha256"]) == 64


def test_click_options_exact_spellings(profile: dict) -> None:
    tp = _action(profile, "tensor_parallel_size")
    assert tp["option_strings"] == ["--tp_size", "--tensor_parallel_size"]
    assert tp["type"] == "int" and tp["default"] == 1
    cfg = _action(profile, "extra_llm_api_options")
    assert cfg["option_strings"] == ["--config", "--extra_llm_api_options"]
    assert _action(profile, "trust_remote_code")["kind"] == "store_true"


def test_choices_aliases_stability_and_forwarding(profile: dict) -> None:
    backend = _action(profile, "backend")
    assert backend["choices"] == ["pytorch", "tensorrt"]
    assert backend["aliases"] == {"trt": "tensorrt"} and backend["case_sensitive"] is True
    assert _action(profile, "log_level")["choices"] == ["error", "info"]  # dict keys, imported
    old = _action(profile, "old_knob")
    assert old["deprecated"] is True and old["forwarded"] is False  # parsed, then dropped
    assert _action(profile, "max_batch_size")["stability"] == "beta"


def test_group_subcommands_and_fallback(profile: dict) -> None:
    group = profile["cli"]["group"]
    assert group["subcommands"] == {"serve": "serve", "disaggregated": "disaggregated"}
    assert group["default"] == "serve"


def test_llm_args_model(profile: dict) -> None:
    llm = profile["llm_api"]
    classes = llm["classes"]
    assert llm["roots"]["TorchLlmArgs"] == "TorchLlmArgs"
    assert classes["TorchLlmArgs"]["bases"] == ["BaseLlmArgs"]
    assert classes["StrictBaseModel"]["forbid"] is True
    base = classes["BaseLlmArgs"]["fields"]
    assert base["tokenizer_mode"]["type"] == {"literal": ["auto", "slow"]}
    assert base["policy"]["type"] == {"enum": ["FIRST", "SECOND"], "name": "Policy"}
    assert base["backend"]["status"] == "deprecated"
    assert base["model"]["required"] is True
    assert base["kv_cache_config"]["type"] == {"model": "KvCacheConfig"}
    spec = classes["DecodingBaseConfig"]["dispatch"]
    assert spec["key"] == "decoding_type"
    assert spec["classes"] == {"MTP": "MTPDecodingConfig", "Eagle": "EagleDecodingConfig"}
    assert "workspace" in classes["TrtLlmArgs"]["fields"]
    assert "workspace" not in classes["TorchLlmArgs"]["fields"]
    assert llm["evidence"]["invalid_key"] == "tensorrt_llm/llmapi/llm.py:4"


def test_env_reads_with_locations(profile: dict) -> None:
    reads = profile["env"]["reads"]
    assert reads["TRTLLM_SERVE_DEBUG"] == ["tensorrt_llm/commands/serve.py:32"]
    assert reads["TLLM_TORCH_FLAG"] == ["tensorrt_llm/llmapi/llm_args.py:68"]


def test_build_writes_a_compact_profile_without_machine_paths(tmp_path: Path) -> None:
    path = build("9.9.0rc1", source_dir=TREE, origin={"repo": "example/repo"}, out_root=tmp_path)
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    assert data["engine"] == "trtllm" and str(TREE) not in json.dumps(data)


def test_build_refuses_a_tree_of_another_version(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="9.9.0rc1"):
        build("1.0.0", source_dir=TREE, out_root=tmp_path)


def test_diff_names_option_and_field_changes(tmp_path: Path, profile: dict) -> None:
    from servelint.engines.diff import diff_profiles, format_diff
    from servelint.profiles import Profile

    newer = json.loads(json.dumps(profile))
    newer["version"] = "9.9.0rc2"
    newer["parser"]["actions"] = [a for a in newer["parser"]["actions"] if a["dest"] != "old_knob"]
    fields = newer["llm_api"]["classes"]["TorchLlmArgs"]["fields"]
    fields["stream_interval"]["type"] = "float"
    fields["new_knob"] = {"line": 1, "type": "bool"}
    text = format_diff(diff_profiles(Profile(profile), Profile(newer)))
    assert "  - --old_knob" in text
    assert "  + TorchLlmArgs.new_knob" in text
    assert '~ TorchLlmArgs.stream_interval: "int" -> "float"' in text


def test_a_wheel_gives_the_same_facts_as_its_tree(tmp_path: Path, profile: dict) -> None:
    import zipfile

    wheel = tmp_path / "tensorrt_llm-9.9.0rc1-cp311-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted(TREE.rglob("*")):
            if path.is_file():
                zf.write(path, str(path.relative_to(TREE)))
    path = build("9.9.0rc1", wheel=wheel, out_root=tmp_path)
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    assert data["provenance"]["kind"] == "wheel"
    assert data["parser"] == profile["parser"] and data["llm_api"] == profile["llm_api"]
    assert data["env"]["reads"] == profile["env"]["reads"]


def test_env_facts_are_partial_without_the_cpp_sources(profile: dict) -> None:
    assert "no C++ sources" in profile["env"]["partial"]
    assert "native_files" not in profile["provenance"]["env_scan"]


def test_cpp_sources_name_the_variables_the_library_reads(tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    (tree / "cpp" / "common").mkdir(parents=True)
    (tree / "cpp" / "common" / "env.cpp").write_text(
        'int a = getIntEnv("TRTLLM_NATIVE_KNOB");\n// "TLLM_x" lowercase: not a name\n'
    )
    (tree / "cpp" / "README.md").write_text('"TRTLLM_NOT_SOURCE"\n')
    prof = build_profile(TreeSource(tree), {"repo": "example/repo"})
    env = prof["env"]
    assert "partial" not in env
    assert env["native"] == {"TRTLLM_NATIVE_KNOB": ["cpp/common/env.cpp:1"]}
    assert "TRTLLM_NATIVE_KNOB" in env["read_unregistered"]
    assert "TRTLLM_NOT_SOURCE" not in env["read_unregistered"]
    assert prof["provenance"]["env_scan"]["native_files"] == 1


def test_env_unknown_is_only_a_hint_where_the_facts_are_partial(profile: dict) -> None:
    from servelint.model import EnvVar, LaunchSpec, Severity, Span
    from servelint.profiles import Profile
    from servelint.rules import env_unknown
    from servelint.rules.base import CheckContext

    span = Span("x.sh", 1, 1)
    spec = LaunchSpec(
        engine="trtllm",
        entrypoint="trtllm-serve",
        argv=[],
        path="x.sh",
        anchor=span,
        env=[EnvVar("TRTLLM_NOBODY_READS", "1", span, False)],
    )
    (f,) = env_unknown.check(CheckContext(spec=spec, profile=Profile(profile)))
    assert f.severity == Severity.INFO and "env facts are partial" in f.message
    full = json.loads(json.dumps(profile))
    del full["env"]["partial"]
    (f,) = env_unknown.check(CheckContext(spec=spec, profile=Profile(full)))
    assert f.severity == Severity.WARNING
