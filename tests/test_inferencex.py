"""InferenceX master entry -> runner -> launcher -> launches binding."""

from __future__ import annotations

import os

import pytest

from servelint.sources.inferencex.reader import read_inferencex

MINI = os.path.join(os.path.dirname(__file__), "cases", "inferencex", "mini")
SEED_MASTER = "/work/shared/corpus/seeds/nvidia-master-at-895c106.yaml"
CORPUS = "/work/shared/corpus/inferencex"


@pytest.fixture(scope="module")
def mini():
    return read_inferencex(MINI)


def by_entry(result, name):
    return [s for s in result.launches if s.context.get("entry") == name]


def words(spec):
    return [t.text for t in spec.argv]


def test_stats(mini):
    st = mini.stats
    assert (st["entries"], st["multi_node_entries"], st["single_node_entries"]) == (7, 1, 6)
    assert st["entries_bound"] == 4
    assert st["launch_sites_per_engine"] == {"sglang": 2, "vllm": 3}
    assert st["single_node_vllm_sglang_spec_rate"] == 100.0


def test_framework_script_wins_and_rows_with_identical_launches_merge(mini):
    specs = by_entry(mini, "m1-fp8-b200-vllm")
    plain = [s for s in specs if "spec=none" in s.rendering]
    assert len(plain) == 1  # five concurrencies, one launch
    spec = plain[0]
    assert spec.rendering == ("m1-fp8-b200-vllm [1k1k tp=8 ep=1 dp-attn=false spec=none "
                              "conc=4,8,16,32,64]")
    assert spec.anchor.path.endswith("fixed_seq_len/m1_fp8_b200_vllm.sh")
    assert words(spec) == ["org/M1", "--port", "8888", "--tensor-parallel-size", "8",
                           "--max-model-len", "2304"]
    assert (spec.origin, spec.gpu, spec.image) == ("inferencex", "b200", "vllm/vllm-openai:v0.27.1")
    assert spec.image_span.line == 2 and spec.context["image_release"] == "0.27.1"


def test_mtp_point_falls_back_to_the_plain_mtp_script(mini):
    (spec,) = [s for s in by_entry(mini, "m1-fp8-b200-vllm") if "spec=mtp" in s.rendering]
    assert spec.anchor.path.endswith("m1_fp8_b200_mtp.sh")
    assert words(spec)[1:5] == ["--tensor-parallel-size", "1", "--data-parallel-size", "8"]


def test_rows_that_change_the_launch_stay_apart(mini):
    specs = by_entry(mini, "m1-fp8-b200-sglang")
    got = sorted((s.rendering.rsplit("conc=", 1)[1], words(s)[-1]) for s in specs)
    assert got == [("256]", "16384"), ("8]", "8192")]
    assert all(s.anchor.path.endswith("m1_fp8_b200.sh") for s in specs)


def test_unknown_runner_label_is_a_problem_with_the_runner_span(mini):
    probs = [p for p in mini.problems if "h200-dgxc" in p.message]
    assert len(probs) == 1 and probs[0].span.line == 36 and probs[0].kind == "unresolved"
    (spec,) = by_entry(mini, "m1-fp8-h200-vllm")  # still bound, by fleet name
    assert spec.gpu == "h200" and spec.anchor.path.endswith("m1_fp8_h200.sh")


def test_missing_script_is_a_problem_at_the_entry(mini):
    (prob,) = [p for p in mini.problems if p.message.startswith("m2-fp4-b200-vllm")]
    assert prob.span.line == 47 and "m2_fp4_b200_vllm.sh" in prob.message
    assert by_entry(mini, "m2-fp4-b200-vllm") == []


def test_fleet_without_launcher_is_a_problem(mini):
    (prob,) = [p for p in mini.problems if p.message.startswith("m1-fp8-b300-vllm")]
    assert "b300-cw" in prob.message


def test_multinode_entries_are_not_bound(mini):
    assert by_entry(mini, "m1-fp8-gb200-dynamo-vllm") == []


def test_agentic_entry_from_the_amd_master(mini):
    (spec,) = by_entry(mini, "m1-fp8-mi355x-sglang-agentic")
    assert spec.gpu == "mi355x" and spec.anchor.path.endswith("agentic/m1_fp8_mi355x_sglang_mtp.sh")
    assert "conc=2,4" in spec.rendering


def test_single_master_file_inside_a_repo(tmp_path):
    res = read_inferencex(os.path.join(MINI, "configs", "amd-master.yaml"))
    assert [s.context["entry"] for s in res.launches] == ["m1-fp8-mi355x-sglang-agentic"]


def test_missing_master_is_a_problem(tmp_path):
    res = read_inferencex(str(tmp_path))
    assert res.launches == [] and res.problems[0].kind == "unresolved"


@pytest.mark.skipif(not os.path.exists(SEED_MASTER), reason="shared corpus not present")
def test_seed_master_binds_to_the_launcher_next_to_it():
    res = read_inferencex(SEED_MASTER, only={"dsr1-fp4-b300-vllm"})
    assert res.problems == []
    assert len(res.launches) == 4  # (tp4 ep4, tp8 ep8) x (1k1k, 8k1k), concurrencies merged
    for spec in res.launches:
        assert spec.anchor.path == "/work/shared/corpus/seeds/dsr1_fp4_b300_vllm.sh"
        assert (spec.gpu, spec.image, spec.engine) == ("b300", "vllm/vllm-openai:v0.21.0", "vllm")
        assert not any(t.symbolic for t in spec.argv)
        w = words(spec)
        assert w[0] == "nvidia/DeepSeek-R1-0528-FP4-V2" and "--enable-expert-parallel" in w
        assert [i.name for i in spec.installs] == ["fastokens", "datasets", "pandas"]
    tp8_8k = [s for s in res.launches if "8k1k tp=8" in s.rendering]
    assert tp8_8k[0].rendering.endswith("conc=1,2,4,8,16]")
    w = words(tp8_8k[0])
    assert w[w.index("--max-num-batched-tokens") + 1] == "16384"


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SERVELINT_SLOW") or not os.path.isdir(CORPUS),
                    reason="about 3 minutes: set SERVELINT_SLOW=1 (and have the shared corpus)")
def test_whole_inferencex_corpus():
    res = read_inferencex(CORPUS)
    st = res.stats
    assert st["single_node_entries"] == 114 and st["multi_node_entries"] == 94
    assert st["entries_bound"] >= 110
    assert st["single_node_vllm_sglang_spec_rate"] >= 95.0
