"""An option file a launch names by path that is bad input: a finding each, never a
traceback, and nothing expanded past the YAML loader's bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelint import profiles
from servelint.check import Options, check_paths


def _bomb() -> str:
    rows = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(8):
        prev, name = chr(97 + i), chr(98 + i)
        rows.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("bomb.yaml", _bomb(), "expands to more than"),
        ("binary.yaml", b"\x00\xff\xfe\x00garbage", "not valid UTF-8"),
        ("huge.yaml", "max_batch_size: 1\n" + "# pad\n" * 300_000, "too large to check"),
        ("broken.yaml", "kv_cache_config: {free_gpu_memory_fraction: [\n", "malformed YAML"),
    ],
)
def test_bad_option_file_is_a_finding(tmp_path: Path, name: str, content, expected: str) -> None:
    if not profiles.available("trtllm"):
        pytest.skip("no committed TensorRT-LLM profiles")
    target = tmp_path / name
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    script = tmp_path / "run.sh"
    script.write_text(f"trtllm-serve m --extra_llm_api_options {name}\n", encoding="utf-8")
    report = check_paths([str(script)], Options(engine="trtllm==1.3.0rc3", use_cache=False))
    messages = [f.message for f in report.findings if f.rule == "read-error"]
    assert any(expected in m for m in messages), messages
    assert not any("internal" in m for m in messages)
