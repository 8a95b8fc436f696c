"""The entrypoint-by-release table of the official vLLM images: its generator on a committed
fixture (tests/data/image_entrypoints: excerpts of the vllm-0.11.0 and -0.11.1 sdists), and
what the committed table answers (read from each release's sdist: docker/Dockerfile)."""

from __future__ import annotations

import importlib.util
import json
import tarfile
from pathlib import Path

import pytest

from servelint.builders.vllm.image_entrypoint import read_flavour
from servelint.engines.images import image_entrypoint, image_launcher, resolve_image
from servelint.engines.vllm import image_entrypoints

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "data" / "image_entrypoints"
API_SERVER = ["python3", "-m", "vllm.entrypoints.openai.api_server"]


def _gen():
    spec = importlib.util.spec_from_file_location(
        "gen_image_entrypoints", ROOT / "tools" / "gen_image_entrypoints.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generator_reads_each_release_target_with_file_and_line() -> None:
    table = _gen().build(FIXTURE)
    assert list(table["releases"]) == ["0.11.0", "0.11.1"]
    cuda = table["releases"]["0.11.0"]["flavours"]["cuda"]
    assert cuda["repository"] == "vllm/vllm-openai"
    assert (cuda["target"], cuda["target_from"]) == (
        "vllm-openai", ".buildkite/release-pipeline.yaml:4"
    )
    assert (cuda["entrypoint"], cuda["entrypoint_at"]) == (API_SERVER, "docker/Dockerfile:12")
    newer = table["releases"]["0.11.1"]["flavours"]["cuda"]
    assert (newer["entrypoint"], newer["entrypoint_at"]) == (
        ["vllm", "serve"], "docker/Dockerfile:12"
    )


def test_a_base_image_built_elsewhere_leaves_the_entrypoint_unknown() -> None:
    rocm = _gen().build(FIXTURE)["releases"]["0.11.1"]["flavours"]["rocm"]
    assert rocm["entrypoint"] is None and rocm["cmd"] == ["/bin/bash"]
    assert rocm["inherited"] == "rocm/vllm-dev:base"


def test_generator_reads_an_sdist_as_its_tree(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    with tarfile.open(sources / "vllm-0.11.0.tar.gz", "w:gz") as tar:
        tar.add(FIXTURE / "0.11.0", arcname="vllm-0.11.0")
    out = tmp_path / "table.json"
    assert _gen().main([str(sources), "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["releases"]["0.11.0"]["read_from"] == "vllm-0.11.0.tar.gz"
    assert table["releases"]["0.11.0"]["flavours"]["cuda"]["entrypoint"] == API_SERVER


def test_an_entrypoint_resets_the_cmd_set_before_it() -> None:
    text = 'FROM ubuntu AS a\nCMD ["bash"]\nFROM a AS vllm-openai\nENTRYPOINT ["vllm", "serve"]\n'
    got = read_flavour({"docker/Dockerfile": text}, "docker/Dockerfile")
    assert got["entrypoint"] == ["vllm", "serve"] and got["cmd"] is None
    text += 'CMD ["--help"]\n'
    got = read_flavour({"docker/Dockerfile": text}, "docker/Dockerfile")
    assert (got["cmd"], got["cmd_at"]) == (["--help"], "docker/Dockerfile:5")


@pytest.mark.parametrize("release, words, at", [
    ("0.10.1.1", API_SERVER, "vllm 0.10.1.1 docker/Dockerfile:532"),
    ("0.11.0", API_SERVER, "vllm 0.11.0 docker/Dockerfile:542"),
    ("0.11.1", ["vllm", "serve"], "vllm 0.11.1 docker/Dockerfile:500"),
    ("0.21.0", ["vllm", "serve"], None),
])
def test_committed_table_per_release(release: str, words: list[str], at: str | None) -> None:
    got = image_entrypoints.entrypoint("vllm/vllm-openai", release)
    assert got is not None and list(got.words) == words and got.exact
    if at:
        assert got.at == at


def test_a_release_without_build_files_takes_its_agreeing_neighbours_not_exact() -> None:
    got = image_entrypoints.entrypoint("vllm/vllm-openai", "0.15.0")  # no sdist published
    assert got is not None and list(got.words) == ["vllm", "serve"] and not got.exact
    assert "0.14.1" in got.why and "0.16.0" in got.why


def test_unknown_stays_unknown() -> None:
    assert image_entrypoints.entrypoint("vllm/vllm-openai", "9.0.0") is None  # beyond the table
    assert image_entrypoints.entrypoint("vllm/vllm-openai-rocm", "0.10.1.1") is None  # base image
    assert image_entrypoint(resolve_image("vllm/vllm-openai:nightly")) is None
    assert image_entrypoint(resolve_image("vllm/vllm-openai:kimi-k3")) is None
    assert image_entrypoint(resolve_image("lmsysorg/sglang:v0.5.12")) is None


def test_image_references_reach_the_table() -> None:
    old = image_entrypoint(resolve_image("vllm/vllm-openai:v0.10.1.1"))
    assert old is not None and list(old.words) == API_SERVER
    latest = image_entrypoint(resolve_image("vllm/vllm-openai:latest"))
    assert latest is not None and list(latest.words) == ["vllm", "serve"]


def test_the_image_entrypoint_as_the_engine_launcher_it_is() -> None:
    assert image_launcher(resolve_image("vllm/vllm-openai:v0.10.1.1")) == (
        "python -m vllm.entrypoints.openai.api_server"
    )
    assert image_launcher(resolve_image("vllm/vllm-openai:v0.21.0")) == "vllm serve"
    assert image_launcher(resolve_image("vllm/vllm-openai-rocm:v0.10.1.1")) is None  # unknown
