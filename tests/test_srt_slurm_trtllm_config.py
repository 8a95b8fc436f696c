"""srt-slurm ``trtllm_config`` role blocks: the file srtctl writes, judged per role against
the TensorRT-LLM release (``dynamo.trtllm --extra-engine-args`` and ``trtllm-serve --config``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from servelint import profiles
from servelint.check import Options, check_paths
from servelint.sources.srt_slurm import read_recipe
from servelint.sources.srt_slurm.option_lines import option_lines
from servelint.sources.srt_slurm.tree import load_tree

pytestmark = pytest.mark.skipif(
    profiles.load("trtllm", "1.3.0rc3") is None, reason="no trtllm 1.3.0rc3 profile"
)

RECIPE = """\
name: t
model: {path: dsr1, container: "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc3", precision: fp4}
dynamo: {version: "1.4.0"}
resources: {gpu_type: b200, gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1,
            prefill_workers: 1, decode_workers: 1}
backend:
  type: trtllm
  trtllm_config:
    prefill:
      tensor_parallel_size: 8
      enable_attention_dp: yes
      max_batch_size: eight
      kv_cache_config:
        free_gpu_memory_fraction: 0.8
        enable_block_reuse: off
    decode:
      tensor_parallel_size: 8
      enable_build_cache: true
      cuda_graph_config:
        batch_sizes: [1, 2, 4]
        max_batchsize: 4
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_the_written_file_reads_back_as_the_role_block() -> None:
    root = load_tree(RECIPE, "r.yaml")
    block = root.get("backend").get("trtllm_config").get("prefill")
    lines = option_lines(block)
    assert yaml.safe_load("\n".join(t for t, _, _ in lines)) == block.plain()
    # YAML 1.1 `yes`/`off` became booleans in the recipe; the file keeps them booleans
    assert "enable_attention_dp: true" in [t for t, _, _ in lines]
    key_line = next(s for t, s, _ in lines if t.startswith("max_batch_size"))
    assert key_line.line == 12  # the recipe's line


def test_each_worker_carries_its_roles_file(tmp_path: Path) -> None:
    result = read_recipe(str(_write(tmp_path, RECIPE)))
    workers = {s.context["role"]: s for s in result.launches if s.context["role"] != "frontend"}
    assert set(workers) == {"prefill", "decode"}
    assert workers["prefill"].entrypoint == "python3 -m dynamo.trtllm"
    texts = [t for t, _, _ in workers["decode"].option_file]
    assert texts[:2] == ["tensor_parallel_size: 8", "enable_build_cache: true"]
    assert not [p for p in result.problems if "not checked" in p.message]


def test_worker_files_are_judged_per_role_against_the_release(tmp_path: Path) -> None:
    report = check_paths([str(_write(tmp_path, RECIPE))], Options())
    got = sorted(
        (f.span.line, f.severity.name, f.message.split(" (")[0])
        for f in report.findings
        if f.code == "SL113"
    )
    assert got == [
        (12, "ERROR", "max_batch_size: input should be a valid integer, got 'eight'"),
        (18, "ERROR", '"enable_build_cache" is a field of the TensorRT backend'),
        (
            21,
            "ERROR",
            'cuda_graph_config: unknown key "max_batchsize" for CudaGraphConfig in trtllm 1.3.0rc3',
        ),
    ]
    f = next(f for f in report.findings if f.code == "SL113")
    assert "dynamo.trtllm --extra-engine-args" in f.message
    assert f.evidence.startswith("tensorrt_llm/llmapi/llm_args.py:")


def test_an_unprofiled_release_is_judged_by_its_neighbour_as_warnings(tmp_path: Path) -> None:
    text = RECIPE.replace("release:1.3.0rc3", "release:1.3.0rc24")
    report = check_paths([str(_write(tmp_path, text))], Options())
    found = sorted((f.span.line, f.severity.name) for f in report.findings if f.code == "SL113")
    # the older profile judges what it knows (a wrong type, a field of the other backend),
    # as warnings; the key it lacks (line 21) may be new in 1.3.0rc24: not judged
    assert found == [(12, "WARNING"), (18, "WARNING")]
    assert all(
        "judged by the nearest profiled release 1.3.0rc3" in f.message
        for f in report.findings
        if f.code == "SL113"
    )


def test_a_file_naming_another_backend_is_not_judged(tmp_path: Path) -> None:
    text = RECIPE.replace(
        "      enable_build_cache: true\n",
        "      backend: _autodeploy\n      enable_build_cache: true\n",
    )
    report = check_paths([str(_write(tmp_path, text))], Options())
    lines = sorted(f.span.line for f in report.findings if f.code == "SL113")
    assert lines == [12]  # the prefill role only


def test_trtllm_serve_workers_get_the_serve_path(tmp_path: Path) -> None:
    # frontend type trtllm_serve: each worker is `trtllm-serve MODEL ... --config FILE`
    text = RECIPE.replace("backend:\n", "frontend: {type: trtllm_serve}\nbackend:\n", 1)
    report = check_paths([str(_write(tmp_path, text))], Options())
    got = sorted(
        (f.span.line, f.message.split(" (")[0]) for f in report.findings if f.code == "SL113"
    )
    assert [line for line, _ in got] == [13, 19, 22]
    assert all("dynamo.trtllm" not in f.message for f in report.findings)


@pytest.mark.parametrize(
    "text",
    [
        "b: [1, {a: 2}]",
        "b: 5",
        'b: {k: "multi\\nline\\n\\n x", t: "tab\\there", e: "", s: " lead", q: "yes"}',
        "b: {x: 1e-3, y: 0x10, z: 2020-01-01, w: ~, v: [], u: {}, n: -0.0}",
        "b: {deep: {deeper: [[1, 2], {k: [on, off]}]}}",
    ],
)
def test_odd_values_read_back_as_srtctl_wrote_them(text: str) -> None:
    block = load_tree(text, "r.yaml").get("b")
    doc = "\n".join(t for t, _, _ in option_lines(block))
    assert yaml.safe_load(doc) == block.plain()
