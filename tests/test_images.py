"""Image reference -> engine + release (release None = cannot check)."""

from __future__ import annotations

import pytest

from servelint.engines.images import resolve_image


@pytest.mark.parametrize("ref, engine, release, floating, custom", [
    ("vllm/vllm-openai:v0.21.0", "vllm", "0.21.0", False, False),
    ("vllm/vllm-openai:v0.21.0-cu130", "vllm", "0.21.0", False, False),
    ("vllm/vllm-openai:v0.20.1-ubuntu2404", "vllm", "0.20.1", False, False),
    ("docker.io/vllm/vllm-openai:v0.27.1", "vllm", "0.27.1", False, False),
    ("vllm/vllm-openai-rocm:v0.22.1", "vllm", "0.22.1", False, False),
    # four-part releases (vllm 0.10.1.1 is on the package index and has a profile)
    ("vllm/vllm-openai:v0.10.1.1", "vllm", "0.10.1.1", False, False),
    ("vllm/vllm-openai:0.10.1.1-cu126", "vllm", "0.10.1.1", False, False),
    ("vllm/vllm-openai:v0.10.1.1.1", "vllm", None, False, True),
    ("rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.3.1", "atom",
     "0.1.3.1", False, False),
    ("vllm/vllm-openai:latest", "vllm", None, True, False),
    ("vllm/vllm-openai:nightly", "vllm", None, True, False),
    ("vllm/vllm-openai", "vllm", None, True, False),
    ("vllm/vllm-openai:nightly-09663abde0f50944a8d5ea30120666024b503faa", "vllm", None, False,
     True),
    ("vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-426e59f", "vllm", None, False, True),
    ("vllm/vllm-openai:kimi-k3", "vllm", None, False, True),
    ("vllm/vllm-openai:dsv4-megamoe-mxfp4-arm64-cu130-4ba0a72", "vllm", None, False, True),
    ("vllm/vllm-openai:vllm-x86_64-cu13-0.25.1-7a33ba9", "vllm", None, False, True),
    ("lmsysorg/sglang:v0.5.9-cu130", "sglang", "0.5.9", False, False),
    ("lmsysorg/sglang:v0.5.12.post1", "sglang", "0.5.12.post1", False, False),
    ("lmsysorg/sglang:v0.5.8.post1-cu130-amd64", "sglang", "0.5.8.post1", False, False),
    # a dated SGLang ROCm tag is the AMD nightly job's build of main after the release it
    # spells (sgl-project/sglang .github/workflows/release-docker-amd-nightly.yml): a range
    ("lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260701", "sglang", None, False, True),
    ("lmsysorg/sglang:v0.4.6.post4-rocm630-srt", "sglang", "0.4.6.post4", False, False),
    ("lmsysorg/sglang:v0.5.12-rocm700-mi30x", "sglang", "0.5.12", False, False),
    ("lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95bf6ec", "sglang", "0.5.14", False, False),
    ("lmsysorg/sglang:nightly-dev-cu13-20260610-f332e526", "sglang", None, False, True),
    ("lmsysorg/sglang:dev-nightly-0820", "sglang", None, False, True),
    ("lmsysorg/sglang:deepseek-v4-hopper@sha256:1bf5d508", "sglang", None, False, True),
    ("rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2", "sglang", None, False, True),
    ("nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc14", "trtllm", "1.3.0rc14", False, False),
    ("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc22.post1", "trtllm", "1.3.0rc22.post1", False,
     False),
    # NGC Dynamo runtimes: the Dynamo release's engine, from ai-dynamo/dynamo's release notes
    # (docs/reference/support-matrix.md @00552b2 line 48; compatibility.mdx @724168c line 31)
    ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1", "trtllm", "1.2.0rc6.post1",
     False, False),
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0-dev.1-cuda13", "vllm", "0.22.0", False, False),
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.1", "vllm", None, False, True),  # a range
    ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:latest", "sglang", None, True, True),
    # ROCm vLLM: rocm/vllm tags spell the release the fork's build starts from (a range);
    # -dev builds name none
    ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "vllm", None, False, True),
    ("rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605", "vllm", None, False, True),
    ("rocm/vllm:rocm7.0_vllm_qwen3coder_next", "vllm", None, False, True),
    ("rocm/vllm-dev:nightly", "vllm", None, True, True),
    # llm-d images build vLLM from a commit: never a release (llm-d/llm-d Dockerfile)
    ("ghcr.io/llm-d/llm-d-cuda:v0.5.1", "vllm", None, False, True),
    ("ghcr.io/llm-d/llm-d:0.0.8", "vllm", None, False, True),
    ("rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.3", "atom", "0.1.3",
     False, False),
    ("rocm/atom-dev:nightly_202606101403", "atom", None, False, True),
    ("rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511", "atom", None,
     False, True),
    ("ghcr.io/tile-ai/tilert:0.1.5", "tilert", "0.1.5", False, False),
    ("quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:a9095d4c", "vllm", None, False,
     True),
    ("ubuntu:22.04", "unknown", None, False, False),
])
def test_resolve_image(ref, engine, release, floating, custom):
    img = resolve_image(ref)
    assert (img.engine, img.release, img.floating, img.custom) == (engine, release, floating,
                                                                  custom)
    if release is None and engine != "unknown":
        assert img.note  # says why it cannot be checked


@pytest.mark.parametrize("ref, release, guess, fork", [
    # the engine's own repositories: the tag names the release exactly
    ("vllm/vllm-openai:v0.11.0", "0.11.0", None, False),
    ("vllm/vllm-openai-cpu:v0.11.0", "0.11.0", None, False),
    # another repository found by its name (vllm-project/aibrix samples/kvcache/l1cache/
    # vllm.yaml): the release its tag names is a guess
    ("aibrix-container-registry-cn-beijing.cr.volces.com/aibrix/vllm-openai-aibrix-kvcache:"
     "v0.10.2-20251022", "0.10.2", None, True),
    # custom tags that start with a release (aibrix samples/quickstart/vke/pd-model.yaml,
    # development/tutorials/distributed/raycluster-head-no-gpu.yaml): built from it, a guess
    ("aibrix/vllm-openai:v0.10.2-aibrix-v0.5.0-nixl-0.7.1-20251123", None, "0.10.2", True),
    ("vllm/vllm-openai:v0.5.2-revised", None, "0.5.2", True),
    ("vllm/vllm-openai:kimi-k3", None, None, False),
    ("vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-426e59f", None, None, False),
])
def test_another_build_names_its_release_as_a_guess(ref, release, guess, fork):
    img = resolve_image(ref)
    assert (img.release, img.guess, img.fork) == (release, guess, fork)
    if fork:
        assert "a guess" in img.basis and (release or guess) in img.basis


def test_parts_are_split():
    img = resolve_image("nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc14")
    assert (img.registry, img.repository, img.tag) == ("nvcr.io", "nvidia/tensorrt-llm/release",
                                                       "1.3.0rc14")
    img = resolve_image("lmsysorg/sglang:v0.5.14-cu130@sha256:abc")
    assert img.digest == "sha256:abc" and img.tag == "v0.5.14-cu130"


def test_digest_pinned_latest_is_not_floating():
    assert not resolve_image("vllm/vllm-openai:latest@sha256:abc").floating


def test_every_inferencex_image_resolves_without_error():
    import os

    import yaml

    root = "/work/shared/corpus/inferencex/configs"
    if not os.path.isdir(root):
        pytest.skip("shared corpus not present")
    images = set()
    for name in ("nvidia-master.yaml", "amd-master.yaml"):
        with open(os.path.join(root, name)) as fh:
            images |= {e["image"] for e in yaml.safe_load(fh).values()}
    refs = [resolve_image(i) for i in images]
    assert all(r.engine != "unknown" for r in refs)
    # a release, or (dated SGLang ROCm nightlies, Dynamo runtimes) the releases it can hold
    assert sum(r.release is not None or r.lo is not None for r in refs) >= 40


@pytest.mark.parametrize("ref, lo, hi, fork", [
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.1-cuda13", "0.20.1", "0.22.0", False),
    ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0", "1.3.0rc17", None, False),
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0", None, "0.11.0", False),
    ("ghcr.io/llm-d/llm-d-cuda:v0.5.1", None, None, True),
    ("ghcr.io/llm-d/llm-d:0.0.8", None, None, True),
    ("rocm/vllm-dev:nightly", None, None, True),
    ("lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260706", "0.5.14", "0.5.14", True),
    # a public write-up reads 0.11.0rc2.dev160 inside this one: within the range
    ("rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", "0.10.2", "0.11.0", True),
    ("rocm/vllm:rocm7.12.0_gfx1151_ubuntu24.04_py3.12_pytorch_2.9.1_vllm_0.16.0", "0.16.0",
     "0.16.0", True),
])
def test_an_image_naming_no_release_is_a_range(ref, lo, hi, fork):
    img = resolve_image(ref)
    assert (img.ranged, img.lo, img.hi, img.fork) == (True, lo, hi, fork)
    assert img.basis  # says what it is known from


def test_the_table_release_says_where_it_comes_from():
    img = resolve_image("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1")
    assert img.basis == ("the Dynamo release 0.8.1.post1 holds trtllm 1.2.0rc6.post1 "
                         "(ai-dynamo/dynamo@00552b233629 docs/reference/support-matrix.md:48)")
    assert resolve_image("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521").fork
    assert "up to 0.11.0, the newest release dated on or before its build (2025-10-06)" in (
        resolve_image("rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006").basis
    )
