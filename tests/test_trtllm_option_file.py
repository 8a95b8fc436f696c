"""Option files of trtllm-serve against the committed 1.3.0rc3 LLM API model."""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.engines.trtllm import option_file
from servelint.model import Span


@pytest.fixture(scope="module")
def prof():
    p = profiles.load("trtllm", "1.3.0rc3")
    if p is None:
        pytest.skip("no trtllm 1.3.0rc3 profile")
    return p


def _lines(text: str, symbolic: tuple[int, ...] = ()) -> tuple:
    return tuple(
        (t, Span("f.yml", i + 1, 1, i + 1, 1 + len(t)), i in symbolic)
        for i, t in enumerate(text.splitlines())
    )


def _messages(prof, text: str, backend: str = "pytorch", symbolic: tuple[int, ...] = ()):
    problems, _ = option_file.check(prof, _lines(text, symbolic), backend, Span("f", 1, 1))
    return [(p.span.line if p.span else None, p.message) for p in problems]


def test_yaml_1_1_booleans_are_booleans(prof) -> None:
    assert _messages(prof, "enable_attention_dp: yes\nprint_iter_log: off") == []


def test_wrong_type_names_the_field_and_source(prof) -> None:
    ((line, msg),) = _messages(prof, "stream_interval: fast")
    assert line == 1 and "stream_interval: input should be a valid integer" in msg
    assert "tensorrt_llm/llmapi/llm_args.py:" in msg


def test_backend_specific_fields(prof) -> None:
    ((_, msg),) = _messages(prof, "enable_build_cache: true")
    assert "field of the TensorRT backend" in msg
    assert _messages(prof, "enable_build_cache: true", backend="tensorrt") == []
    ((_, msg),) = _messages(prof, "print_iter_log: true", backend="tensorrt")
    assert "unknown LLM API argument" in msg and "TorchLlmArgs" in msg


def test_keys_serve_pops_are_not_refused(prof) -> None:
    assert _messages(prof, "build_config:\n  max_batch_size: 8") == []  # dropped on pytorch
    assert _messages(prof, "disagg_cluster:\n  cluster_uri: x") == []


def test_speculative_config_dispatches_on_decoding_type(prof) -> None:
    ok = "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 2"
    assert _messages(prof, ok) == []
    bad = "speculative_config:\n  decoding_type: Mtp\n  num_nextn_predict_layers: 2"
    ((line, msg),) = _messages(prof, bad)
    assert line == 2 and "'Mtp' is not one of" in msg
    # the class is unknown when decoding_type is symbolic: nothing is judged
    sym = "speculative_config:\n  decoding_type: $T\n  bogus: 1"
    assert _messages(prof, sym, symbolic=(1,)) == []


def test_symbolic_values_are_not_judged(prof) -> None:
    assert (
        _messages(prof, "stream_interval: $N\nkv_cache_config:\n  dtype: $D", symbolic=(0, 2)) == []
    )


def test_symbolic_structure_is_not_judged(prof) -> None:
    problems, facts = option_file.check(
        prof, _lines("$BLOCK\nbogus: 1", (0,)), "pytorch", Span("f", 1, 1)
    )
    assert problems == [] and facts["opaque"] is True


def test_not_yaml_is_one_problem(prof) -> None:
    ((line, msg),) = _messages(prof, "a: [1, 2\nb: c")
    assert "not valid YAML" in msg


def test_the_files_backend_key_picks_the_class(prof) -> None:
    # serve merges the file over the command line: backend: pytorch wins over --backend tensorrt
    found = _messages(prof, "backend: pytorch\nprint_iter_log: true", backend="tensorrt")
    assert [m for _, m in found if "deprecated" not in m] == []  # a deprecated field: a warning
    ((_, msg),) = _messages(prof, "backend: eagle")
    assert "not a backend" in msg


def test_a_missing_dispatch_key_is_refused(prof) -> None:
    ((line, msg),) = _messages(prof, "speculative_config:\n  max_draft_len: 3")
    assert "decoding_type is missing" in msg


def test_validator_bounds_read_from_the_source(prof) -> None:
    ((line, msg),) = _messages(prof, "kv_cache_config:\n  free_gpu_memory_fraction: 1.5")
    assert line == 2 and "refused by validate_free_gpu_memory_fraction" in msg
    assert "0 <= value <= 1" in msg and "llm_args.py:" in msg
    assert _messages(prof, "kv_cache_config:\n  free_gpu_memory_fraction: 1") == []
    # pydantic's lax mode parses the numeric string first; the validator then refuses it
    assert _messages(prof, "kv_cache_config:\n  free_gpu_memory_fraction: '8'")
    ((_, msg),) = _messages(prof, "cuda_graph_config:\n  max_batch_size: '-1'")
    assert "refused by validate_cuda_graph_max_batch_size" in msg
    # no `if v is None` guard: `0 <= None` raises TypeError
    ((_, msg),) = _messages(prof, "kv_cache_config:\n  free_gpu_memory_fraction: null")
    assert "None raises TypeError" in msg


def test_a_guarded_validator_lets_null_through(prof) -> None:
    text = "speculative_config:\n  decoding_type: MTP\n  acceptance_window: {}"
    assert _messages(prof, text.format("null")) == []
    ((_, msg),) = _messages(prof, text.format("-1"))
    assert "refused by _validate_acceptance_window" in msg


def test_model_validator_bounds_on_the_pytorch_backend(prof) -> None:
    ((_, msg),) = _messages(prof, "stream_interval: 0")
    assert "refused by validate_stream_interval" in msg and "llm_args.py:" in msg
    assert _messages(prof, "stream_interval: 1") == []
    assert _messages(prof, "batch_wait_max_tokens_ratio: 0.5") == []
