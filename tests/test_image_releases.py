"""The generator of the table of images whose tag names no engine release
(tools/gen_image_releases.py), on a committed excerpt of ai-dynamo/dynamo's release notes
(tests/data/image_releases) and on a small llm-d-like git repository made here."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "data" / "image_releases"
AT = "ai-dynamo/dynamo@00552b233629 docs/reference/support-matrix.md"


def _gen():
    spec = importlib.util.spec_from_file_location(
        "gen_image_releases", ROOT / "tools" / "gen_image_releases.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dynamo(tmp_path: Path) -> dict:
    out = tmp_path / "table.json"
    doc = f"{FIXTURE / 'support-matrix.md'}@00552b23362935fcb6f85c23fdd87f03879db20d:" \
          "docs/reference/support-matrix.md"
    assert _gen().main(["--dynamo-doc", doc, "--out", str(out)]) == 0
    return {f["name"]: f for f in json.loads(out.read_text())["families"]}


def test_each_dynamo_row_gives_each_engine_release_with_its_line(tmp_path: Path) -> None:
    fams = _dynamo(tmp_path)
    assert fams["dynamo-trtllm-runtime"]["tags"]["0.8.1.post1"] == {
        "release": "1.2.0rc6.post1", "at": f"{AT}:13"
    }
    assert fams["dynamo-vllm-runtime"]["tags"]["0.9.0"] == {"release": "0.14.1", "at": f"{AT}:12"}
    assert fams["dynamo-vllm-runtime"]["repositories"] == [
        "nvidia/ai-dynamo/vllm-runtime", "nvidia/ai-dynamo/vllm-runtime-cu13"
    ]


def test_rows_naming_no_release_give_none(tmp_path: Path) -> None:
    fams = _dynamo(tmp_path)
    assert "main (ToT)" not in fams["dynamo-vllm-runtime"]["tags"]  # a branch
    dev = "1.2.0-deepseek-v4-dev.2"
    assert fams["dynamo-vllm-runtime"]["tags"][dev]["release"] == "0.20.0"
    assert fams["dynamo-sglang-runtime"]["tags"][dev]["release"] is None  # "upstream preview"
    assert fams["dynamo-trtllm-runtime"]["tags"][dev]["release"] is None  # "—"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


@pytest.fixture
def llm_d(tmp_path: Path) -> Path:
    """Two tags: one building a fork at a commit (as llm-d 0.0.8's Dockerfile:178), one
    pinning a release."""
    repo = tmp_path / "llm-d"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "Dockerfile").write_text(
        "FROM base AS build\nENV VLLM_COMMIT_SHA=6a0c5cd7f507ad0efc8eacf9998df0ce6c43e292\n"
        "RUN git clone -b pd-launch-branch https://github.com/neuralmagic/vllm.git\n"
    )
    _git(repo, "add", "Dockerfile")
    _git(repo, "commit", "-qm", "fork")
    _git(repo, "tag", "0.0.8")
    (repo / "Dockerfile").write_text("FROM base\nRUN uv pip install vllm==0.10.1.1\n")
    _git(repo, "commit", "-qam", "pin")
    _git(repo, "tag", "v0.2.0")
    return repo / ".git"


def test_llm_d_tags_record_how_vllm_is_installed(tmp_path: Path, llm_d: Path) -> None:
    out = tmp_path / "table.json"
    assert _gen().main(["--llm-d-git", str(llm_d), "--out", str(out)]) == 0
    (fam,) = json.loads(out.read_text())["families"]
    fork, pinned = fam["tags"]["0.0.8"], fam["tags"]["0.2.0"]
    assert fork["release"] is None and fork["at"].endswith("Dockerfile:2")
    assert "neuralmagic/vllm@6a0c5cd7f507 (branch pd-launch-branch)" in fork["note"]
    assert pinned["release"] == "0.10.1.1" and pinned["at"].endswith("Dockerfile:2")
    assert fam["forks"] is True
