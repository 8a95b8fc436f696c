"""Placeholder words (sources/common/placeholders.py): masked and marked, real shell kept."""

from __future__ import annotations

import pytest

from servelint.model import Token
from servelint.sources.common.placeholders import is_placeholder, mark, mask, mask_bytes


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("vllm serve m --tp <N> --port 1", "vllm serve m --tp $_N --port 1"),
        ("vllm serve m <other option>", "vllm serve m $_other_option"),
        ("x --logits-processors <logits processor 1>", "x --logits-processors $_logits_processor_1"),
        ("vllm serve {model} [args]", "vllm serve $_model $_args"),
        ("vllm serve m [other flags]", "vllm serve m $_other_flags"),
        ("x --load-format [safetensors|gguf]", "x --load-format $_safetensors_gguf"),
    ],
)
def test_mask_rewrites_same_length(text: str, masked: str) -> None:
    assert mask(text) == masked and len(mask(text)) == len(text)
    assert mask_bytes(text.encode()) == masked.encode()


@pytest.mark.parametrize(
    "text",
    [
        "cat <<EOF >out",
        "diff <(a) <(b)",
        "sort < in.txt 2> err",
        "echo ${arr[i]} ${x}",
        "[[ -f x ]] && [ -d y ]",
        "echo {a,b} '{\"a\": 1}'",
        "declare -A m=([key]=v)",
        "- [Model card](https://huggingface.co/m)",
        "f List<T> x",
    ],
)
def test_mask_keeps_real_shell(text: str) -> None:
    assert mask(text) == text


def test_mark_words_and_runs() -> None:
    words = ["--host", "your", "ip", "--port", "8000", "...", "[other", "flags]", "--dtype", "auto"]
    out = mark([Token(w) for w in words])
    assert [t.text for t in out if t.symbolic] == ["your", "ip", "...", "[other", "flags]"]


@pytest.mark.parametrize("word", ["{model}", "<model>", "[args]", "your-model", "/path/to/your/dir", "…"])
def test_placeholder_words(word: str) -> None:
    assert is_placeholder(word)


@pytest.mark.parametrize("word", ["auto", "0.9", '{"a": 1}', "[1,2,4]", "youruser/model", "--x"])
def test_values_are_not_placeholders(word: str) -> None:
    assert not is_placeholder(word)
