"""The release-range rule for TensorRT-LLM: an unprofiled image release is judged by its
nearest profiled neighbours, every finding capped at warning and naming the releases."""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.check import Options, check_text
from servelint.model import Severity
from servelint.releases import release_range


@pytest.fixture(autouse=True)
def _need_profile():
    if profiles.load("trtllm", "1.3.0rc3") is None:
        pytest.skip("no trtllm 1.3.0rc3 profile")


def _check(tag: str, script: str):
    image = f"nvcr.io/nvidia/tensorrt-llm/release:{tag}"
    return check_text(script, "bash", options=Options(image=image))


def test_neighbours_on_each_side() -> None:
    assert release_range.neighbours("trtllm", "1.3.0rc18") == [("1.3.0rc3", "below")]
    assert release_range.neighbours("trtllm", "1.2.0rc2") == [("1.3.0rc3", "above")]
    assert release_range.neighbours("vllm", "0.99.0") == []  # vLLM profiles every release


def test_a_guess_is_never_an_error() -> None:
    report = _check("1.2.0rc2", "trtllm-serve Qwen/Qwen3-8B --max-batch-size 8\n")
    flagged = [f for f in report.findings if f.code == "SL101"]
    assert flagged and all(f.severity == Severity.WARNING for f in flagged)
    assert "1.3.0rc3 (above)" in flagged[0].message


def test_an_older_profile_says_nothing_of_names_a_newer_release_may_add() -> None:
    """1.3.0rc18 is judged by 1.3.0rc3 (below): a flag 1.3.0rc3 lacks may be new, so no
    unknown-name finding; one note names the missing profile and how to build it."""
    report = _check("1.3.0rc18", "trtllm-serve Qwen/Qwen3-8B --max-batch-size 8\n")
    assert not [f for f in report.findings if f.code == "SL101"]
    (note,) = [f for f in report.findings if f.code == "SL142"]
    assert "names it may have added since 1.3.0rc3" in note.message
    assert "`servelint profile build trtllm 1.3.0rc18 --source-dir" in note.message


def test_an_older_profile_still_judges_values_of_names_it_knows() -> None:
    report = _check("1.3.0rc18", "trtllm-serve Qwen/Qwen3-8B --max_batch_size eight\n")
    assert [f.severity for f in report.findings if f.severity >= Severity.WARNING] == [
        Severity.WARNING
    ]


def test_the_profiled_release_itself_gives_errors() -> None:
    report = _check("1.3.0rc3", "trtllm-serve Qwen/Qwen3-8B --max-batch-size 8\n")
    assert [f.severity for f in report.findings if f.code == "SL101"] == [Severity.ERROR]


def test_disaggregated_is_recognised_not_judged() -> None:
    report = _check("1.3.0rc3", "trtllm-serve disaggregated -c disagg.yaml\n")
    assert not [f for f in report.findings if f.code in {"SL101", "SL111"}]
