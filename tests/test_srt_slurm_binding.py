"""InferenceX multi-node entries bound to their srt-slurm recipes (the real checkout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelint.model import Severity
from servelint.pipeline.problems import problem_finding
from servelint.sources.inferencex.reader import read_inferencex

ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "inferencex"
pytestmark = pytest.mark.skipif(not (ROOT / "configs").is_dir(), reason="corpus not present")


@pytest.fixture(scope="module")
def result():
    return read_inferencex(str(ROOT))


def test_every_recipe_is_read_and_every_multi_node_entry_accounted_for(result) -> None:
    mn = result.stats["multi_node"]
    assert mn["srt_slurm_files_read"] == 469
    assert (
        mn["entries_bound"]
        + mn["entries_unbound"]
        + mn["wrapper_no_launch"]
        + mn["wrapper_launches"]
        - 1
        == result.stats["multi_node_entries"]
        == 94
    )  # the llm-d entry is in both counts
    (note,) = [p for p in result.problems if p.message.startswith("srt-slurm recipes:")]
    assert "469 files read" in note.message and "59 bound to a recipe" in note.message


def test_image_differs_from_recipe_container(result) -> None:
    got = sorted(
        p.message.split(":")[0]
        for p in result.problems
        if "differs from the entry's image" in p.message
    )
    assert got == ["dsv4-fp4-gb200-dynamo-vllm-mtp2", "dsv4-fp4-gb200-dynamo-vllm-mtp2-nosynthetic"]
    p = next(p for p in result.problems if "differs from the entry's image" in p.message)
    assert p.span.path.endswith("disagg-gb200-mid-curve-megamoe-mtp2.yaml") and p.span.line == 5


def test_config_file_outside_the_repository_is_reported_with_its_branch(result) -> None:
    outside = [p for p in result.problems if "is not in this repository" in p.message]
    assert len(outside) == result.stats["multi_node"]["refs_outside_repo"] == 207
    first = next(p for p in outside if p.message.startswith("dsr1-fp4-b200-dynamo-trt:"))
    assert "branch 'sa-submission-q2-2026'" in first.message
    assert first.span.path.endswith("nvidia-master.yaml") and first.span.line == 26
    # a file of another checkout by design: a note per entry, not a warning (nothing to fix
    # in this repository; the summary note counts them)
    assert problem_finding(first).severity == Severity.INFO


def test_override_selector_picks_the_zip_row(result) -> None:
    mine = [
        s
        for s in result.launches
        if s.context.get("config_file", "").endswith(
            "glm5.2-agentx.yaml:zip_override_mtp_agentx_lowlat[1]"
        )
    ]
    assert mine and {s.context["srt_slurm_variant"] for s in mine} == {"mtp_agentx_lowlat_1"}
    assert {s.engine for s in mine} == {"sglang"}


def test_wrapper_entries_say_why_they_are_not_read(result) -> None:
    msgs = [p.message for p in result.problems if "submits a Slurm job" in p.message]
    # the AMD sglang-disagg MTP entries and the agentic one (their server_sglang.sh launches
    # are not resolved); the llm-d, TileRT, AMD atom-disagg and 5 AMD sglang-disagg jobs
    # yield launches
    assert len(msgs) == result.stats["multi_node"]["wrapper_no_launch"] >= 2
    amd = next(m for m in msgs if m.startswith("dsr1-fp4-mi355x-sglang-disagg-mtp:"))
    assert "amd_utils/submit.sh, benchmarks/multi_node/amd_utils/job.slurm, " in amd
    assert result.stats["multi_node"]["wrapper_launches"] == 8


def test_wrapper_job_launches_are_bound_to_the_entry(result) -> None:
    mine = [s for s in result.launches if s.context.get("entry") == "dsv4-fp4-gb200-llmd-vllm"]
    # llm-d/submit.sh -> sbatch job.slurm -> docker run ... llm-d/server.sh: vllm serve
    assert {(s.engine, s.entrypoint, s.gpu) for s in mine} == {("vllm", "vllm serve", "gb200")}
    assert {Path(s.anchor.path).name for s in mine} == {"server.sh"}
    assert all(s.image and s.image.startswith("quay.io/rh-ee-imarkov/llm-d") for s in mine)
    # TileRT: the prefill vllm serve runs in the PREFILL_IMAGE the entry's settings name
    tilert = [s for s in result.launches if s.context.get("entry") == "glm5.1-fp8-b200-tilert"]
    assert {(s.engine, s.image, Path(s.anchor.path).name, s.anchor.line) for s in tilert} == {
        ("vllm", "vllm/vllm-openai:v0.26.0", "run_node.sh", 159)
    }
    # AMD: wrapper -> amd_utils/submit.sh -> sbatch job.slurm -> docker run server.sh,
    # which sources server_sglang.sh by ENGINE (= the entry's framework, submit.sh exports it)
    amd = [s for s in result.launches if s.context.get("entry") == "dsr1-fp4-mi355x-sglang-disagg"]
    assert {(s.engine, s.image, Path(s.anchor.path).name, s.gpu) for s in amd} == {
        (
            "sglang",
            "lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260519",
            "server_sglang.sh",
            "mi355x",
        )
    }
    atom = [s for s in result.launches if s.context.get("entry") == "dsv4-fp4-mi355x-atom-disagg"]
    assert atom and {s.image for s in atom} == {"rocm/atom-dev:nightly_202606101403"}


def test_trtllm_launches_are_checked_with_their_roles_option_files(result) -> None:
    trt = [s for s in result.launches if s.engine == "trtllm" and s.origin == "srt-slurm"]
    assert not [p for p in result.problems if "trtllm worker launch(es) rendered" in p.message]
    workers = [s for s in trt if s.entrypoint == "python3 -m dynamo.trtllm"]
    assert len(trt) == 281 and len(workers) == 187
    with_file = [s for s in workers if s.option_file is not None]
    assert len(with_file) == len([s for s in workers if s.context.get("config_files")]) > 150
