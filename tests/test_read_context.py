"""One read context per run: a checkout's option-file mention index is built once for all
its option files (``ReadContext.mentions``), and afresh by the next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelint import profiles
from servelint.check import Options, check_paths
from servelint.sources.option_file import naming

OPTIONS = "max_batch_size: 8\nenable_chunked_prefill: true\nkv_cache_config:\n" \
          "  free_gpu_memory_fraction: 0.8\nprint_iter_log: true\n"


def _checkout(root: Path, files: int) -> list[str]:
    (root / ".git").mkdir()
    (root / "configs").mkdir()
    for i in range(files):
        (root / "configs" / f"cfg_{i}.yaml").write_text(OPTIONS, encoding="utf-8")
        (root / f"run_{i}.sh").write_text(
            "trtllm-serve meta-llama/Llama-3.1-8B --backend pytorch "
            f"--extra_llm_api_options configs/cfg_{i}.yaml\n", encoding="utf-8")
    return [str(root / "configs" / f"cfg_{i}.yaml") for i in range(files)]


def test_mention_index_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not profiles.available("trtllm"):
        pytest.skip("no committed TensorRT-LLM profiles")
    paths = _checkout(tmp_path, 3)
    built: list[str] = []
    index = naming.mention_index
    monkeypatch.setattr(naming, "mention_index", lambda root: built.append(root) or index(root))
    first = check_paths(paths, Options(use_cache=False, jobs=1))
    assert built == [str(tmp_path)]
    assert len(first.launches) == 3  # each option file judged through the launcher naming it
    check_paths(paths, Options(use_cache=False, jobs=1))
    assert built == [str(tmp_path)] * 2  # a new run reads the checkout again
