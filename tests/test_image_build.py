"""The image package set read from a release's build files (engines/vllm/builder/image_build)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from servelint import profiles
from servelint.builders.vllm import dockerfile as df
from servelint.builders.vllm.image_build import build, read_flavour
from servelint.releases import image_contents

DOCKERFILE = """\
ARG CUDA_VERSION=13.0.1
ARG FINAL_BASE_IMAGE=nvidia/cuda:${CUDA_VERSION}-base-ubuntu24.04
FROM ubuntu AS build
RUN pip install -r requirements/build.txt
FROM ${FINAL_BASE_IMAGE} AS runtime
COPY requirements/cuda.txt /tmp/req-cuda.txt
RUN uv pip install --system -r /tmp/req-cuda.txt \\
    --extra-index-url https://example.invalid/cu$(echo $CUDA_VERSION | tr -d .)
FROM runtime AS vllm-openai
ARG INSTALL_KV_CONNECTORS=false
ARG INSTALL_EXTRA=false
ARG CUDA_VERSION
RUN --mount=type=bind,source=requirements,target=/tmp/r \\
    if [ "$INSTALL_KV_CONNECTORS" = "true" ]; then \\
        uv pip install --system -r /tmp/r/kv.txt; \\
    fi && \\
    if [ "${CUDA_VERSION%%.*}" = "13" ]; then \\
        uv pip install --system "timm>=1.0.17"; \\
    else \\
        uv pip install --system old-timm; \\
    fi
RUN if [ "$INSTALL_EXTRA" = "true" ]; then uv pip install --system extra-pkg; fi
RUN uv pip install --system dist/*.whl[audio] accelerate 'modelscope<1.38'
FROM vllm-openai AS vllm-openai-nonroot
USER vllm
"""

FILES = {
    "docker/Dockerfile": DOCKERFILE,
    "requirements/cuda.txt": "-r common.txt\ntorch==2.9.0\nwinonly; sys_platform == 'win32'\n",
    "requirements/common.txt": "# common\nfastapi>=0.1 # web\n",
    "requirements/kv.txt": "lmcache\n",
    "requirements/build.txt": "cmake\n",
    ".buildkite/release-pipeline.yaml": (
        "  - label: build image x86\n"
        "    commands:\n"
        "      - |\n"
        "        docker build \\\n"
        "          --build-arg INSTALL_EXTRA=true \\\n"
        "          --target vllm-openai \\\n"
        "          -f docker/Dockerfile .\n"
    ),
}


def test_final_stage_packages_with_provenance() -> None:
    got = read_flavour(FILES, "docker/Dockerfile")
    assert got is not None
    pk = got["packages"]
    assert pk["torch"] == {
        "specifier": "==2.9.0",
        "at": "requirements/cuda.txt:2",
        "via": "docker/Dockerfile:7",
    }
    assert pk["fastapi"]["at"] == "requirements/common.txt:2"  # -r include followed
    assert pk["accelerate"]["at"] == "docker/Dockerfile:23"
    assert pk["modelscope"]["specifier"] == "<1.38"
    assert pk["timm"]["specifier"] == ">=1.0.17"  # ${CUDA_VERSION%%.*} = 13
    assert "old-timm" not in pk and "winonly" not in pk
    assert "cmake" not in pk  # a stage the target does not build on
    assert "lmcache" not in pk  # INSTALL_KV_CONNECTORS=false by default
    assert any("INSTALL_KV_CONNECTORS" in s["condition"] for s in got["skipped"])
    assert pk["extra-pkg"]["at"] == "docker/Dockerfile:22"  # the release pipeline's build-arg
    assert got["build_args"]["INSTALL_EXTRA"]["at"] == ".buildkite/release-pipeline.yaml:5"
    assert got["wheel"] == {"extras": ["audio"], "at": "docker/Dockerfile:23"}
    assert got["target"] == "vllm-openai"
    assert got["base_image"] == "nvidia/cuda:13.0.1-base-ubuntu24.04" and got["complete"]


def test_undecidable_condition_is_kept_with_its_text() -> None:
    text = "FROM ubuntu AS vllm-openai\nRUN if [ -f /x ]; then pip install maybe-pkg; fi\n"
    got = read_flavour({"docker/Dockerfile": text}, "docker/Dockerfile")
    assert got is not None
    assert got["packages"]["maybe-pkg"]["condition"] == "[ -f /x ]"


def test_external_base_image_makes_the_set_partial() -> None:
    text = (
        "ARG BASE_IMAGE=rocm/vllm-dev:base\nFROM ${BASE_IMAGE} AS vllm-openai\n"
        "RUN pip install huggingface-hub\n"
    )
    got = read_flavour({"docker/Dockerfile.rocm": text}, "docker/Dockerfile.rocm")
    assert got is not None and not got["complete"]
    assert "rocm/vllm-dev:base" in got["incomplete"]


def test_shell_tests() -> None:
    env = {"A": "true", "B": "", "V": "12.9.1"}
    assert df.decide(["[", "$A", "=", "true", "]"], env) is True
    assert df.decide(["!", "[", "$A", "=", "true", "]"], env) is False
    assert df.decide(["[", "-n", "${B}", "]"], env) is False
    assert df.decide(["[", "-f", "x", "]"], env) is None
    assert df.decide(["[", "$A", "=", "true", "]", "&&", "[", "-f", "x", "]"], env) is None
    assert df.expand("${V%%.*}", env) == "12"
    assert df.expand("${V%.*}", env) == "12.9"
    assert df.expand("$(cat f)", env) is None


def test_build_reads_an_sdist(tmp_path: Path) -> None:
    sdist = tmp_path / "vllm-9.9.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        for rel, text in FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(f"vllm-9.9.9/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    got = build(sdist)
    assert len(got["sdist"]["sha256"]) == 64
    assert set(got["flavours"]) == {"cuda"}


def test_committed_set_for_0_33_0_has_provenance() -> None:
    prof = profiles.load("vllm", "0.33.0")
    assert prof is not None
    cuda = image_contents.built_set(prof.image, "cuda")
    assert cuda is not None and cuda["complete"]
    assert all(":" in e["at"] for e in cuda["packages"].values())
    assert image_contents.lookup(prof.image, "cuda", "smg-grpc-servicer").entry is None
    assert image_contents.lookup(prof.image, "cuda", "fastapi").entry is not None
    assert image_contents.built_set(prof.image, "rocm") is not None


def test_flavour() -> None:
    assert image_contents.flavour("vllm/vllm-openai:v0.33.0", None) == "cuda"
    assert image_contents.flavour("vllm/vllm-openai-rocm:v0.33.0", None) == "rocm"
    assert image_contents.flavour("vllm/vllm-openai:v0.33.0", "mi300x") == "rocm"


# releases whose sdist the package index does not serve (`pip download --no-binary :all:
# vllm==0.15.0` lists no 0.15.x): their image contents stay the inferred union
NO_SDIST = {"0.15.0", "0.15.1"}


def test_every_profiled_vllm_release_has_an_image_set() -> None:
    data = Path(profiles.__file__).parent / "data" / "vllm"
    releases = set(profiles.available("vllm"))
    sets = {p.name.removesuffix(".json.gz") for p in (data / "images").glob("*.json.gz")}
    assert releases - sets == NO_SDIST
    for version in ("0.10.0", "0.11.0"):
        prof = profiles.load("vllm", version)
        assert prof is not None
        cuda = image_contents.built_set(prof.image, "cuda")
        assert cuda is not None and all(":" in e["at"] for e in cuda["packages"].values())
