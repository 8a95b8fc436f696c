"""Late value sets read from membership checks in vLLM's code (builder/value_checks.py),
normalising before-validators (builder/normalisers.py) and how the check side applies them
(json_config): each on a miniature wheel or a code snippet in the release's own shapes."""

from __future__ import annotations

import ast
import textwrap
import zipfile
from pathlib import Path

import pytest

from servelint.builders.vllm import dispatch_sets, value_checks
from servelint.builders.vllm.normalisers import string_steps
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.lax_values import (
    enum_value_problem,
    literal_problem,
    normalise,
)

FILES = {
    "vllm/config/cache.py": """
        from typing import Literal, get_args
        from pydantic import field_validator
        CacheDType = Literal["auto", "fp8"]
        KV_CACHE_DTYPES: list[str] = list(get_args(CacheDType))

        def register_kv_cache_dtype(name):
            KV_CACHE_DTYPES.append(name)

        def is_known_kv_cache_dtype(name: str) -> bool:
            return name in KV_CACHE_DTYPES

        class CacheConfig:
            cache_dtype: CacheDType | str = "auto"
            block_size: int = 16

            @field_validator("cache_dtype", mode="after")
            @classmethod
            def _validate_cache_dtype(cls, cache_dtype):
                if not is_known_kv_cache_dtype(cache_dtype):
                    raise ValueError(f"Invalid kv_cache_dtype: {cache_dtype!r}")
                return cache_dtype

            @field_validator("block_size", mode="after")
            @classmethod
            def _fix(cls, value):
                value = value * 2
                if value not in KV_CACHE_DTYPES:
                    raise ValueError("never read: the value was rebound first")
                return value
    """,
    "vllm/transformers_utils/config.py": '''
        _PARSERS = {"hf": 1, "mistral": 2}

        def get_config_parser(config_format: str):
            """Get the parser."""
            if config_format not in _PARSERS:
                raise ValueError(f"Unknown config format `{config_format}`.")
            return _PARSERS[config_format]

        def get_config(model, config_format="auto"):
            if config_format == "auto":
                config_format = "hf"
            return get_config_parser(config_format)
    ''',
    "vllm/config/model.py": """
        from vllm.transformers_utils.config import get_config

        class ModelConfig:
            config_format: str = "auto"

            def __post_init__(self):
                self.hf_config = get_config(self.model, self.config_format)
    """,
    "vllm/utils/import_utils.py": '''
        def resolve_obj_by_qualname(qualname: str):
            """Resolve."""
            module_name, obj_name = qualname.rsplit(".", 1)
            return module_name, obj_name
    ''',
    "vllm/v1/executor/abstract.py": """
        from vllm.utils.import_utils import resolve_obj_by_qualname

        class Executor:
            @staticmethod
            def get_class(vllm_config):
                parallel_config = vllm_config.parallel_config
                distributed_executor_backend = parallel_config.distributed_executor_backend
                if isinstance(distributed_executor_backend, type):
                    executor_class = distributed_executor_backend
                elif distributed_executor_backend == "ray":
                    executor_class = 1
                elif distributed_executor_backend == "mp":
                    executor_class = 2
                elif isinstance(distributed_executor_backend, str):
                    executor_class = resolve_obj_by_qualname(distributed_executor_backend)
                return executor_class
    """,
    "vllm/config/parallel.py": """
        class ParallelConfig:
            distributed_executor_backend: str | None = None
    """,
    "vllm/config/vllm.py": """
        class VllmConfig:
            def __post_init__(self):
                from vllm.v1.executor.abstract import Executor
                executor_class = Executor.get_class(self)
    """,
    "vllm/config/reasoning.py": """
        class ReasoningConfig:
            reasoning_parser: str = ""
            reasoning_start_str: str = ""

            def initialize(self):
                if self.reasoning_parser:
                    ReasoningParserManager.get_reasoning_parser(self.reasoning_parser)

        class OtherConfig:
            reasoning_parser: str = ""
            reasoning_start_str: str = ""

            def initialize(self):
                if self.reasoning_parser is not None and not self.reasoning_start_str:
                    ReasoningParserManager.get_reasoning_parser(self.reasoning_parser)
    """,
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    path = tmp_path_factory.mktemp("checks") / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in FILES.items():
            zf.writestr(name, textwrap.dedent(text))
        zf.writestr("vllm-0.0.1.dist-info/METADATA", "Name: vllm\nVersion: 0.0.1\n")
    return WheelSource(Path(path))


def test_validator_membership_set(wheel: WheelSource) -> None:
    found = value_checks.validator_sets(wheel)
    assert [f["name"] for f in found] == ["cache_dtype"]  # block_size rebinds first
    (cache,) = found
    assert cache["values"] == ["auto", "fp8"]
    assert cache["config_field"] == ("CacheConfig", "cache_dtype")
    assert cache["source"] == "vllm/config/cache.py:5"
    assert cache["registered_by"] == "vllm/config/cache.py:7"
    assert cache["message"].startswith("Invalid kv_cache_dtype")


def test_lookup_function_fed_from_a_config_field(wheel: WheelSource) -> None:
    (found,) = value_checks.lookup_sets(wheel)
    assert found["name"] == "config_format"
    assert found["values"] == ["auto", "hf", "mistral"]  # "auto" resolved before the lookup
    assert found["config_field"] == ("ModelConfig", "config_format")
    assert found["check"] == "vllm/transformers_utils/config.py:4"
    assert found["registered_by"] == ""


def test_dispatch_on_names_or_class_paths(wheel: WheelSource) -> None:
    (found,) = dispatch_sets.dispatch_sets(wheel)
    assert found["values"] == ["ray", "mp"]
    assert found["config_field"] == ("ParallelConfig", "distributed_executor_backend")
    assert found["class_paths"] is True
    assert "vllm/config/vllm.py:5" in found["message"]


def test_registry_lookups_only_without_other_conditions(wheel: WheelSource) -> None:
    assert value_checks.looked_up_fields(wheel, "get_reasoning_parser") == [
        ("ReasoningConfig", "reasoning_parser")
    ]


def _fn(text: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(text)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def test_string_normalisers() -> None:
    steps = string_steps(
        _fn("""
        def _n(cls, value):
            if isinstance(value, str):
                return value.lower().replace("-", "_")
            return value
    """)
    )
    assert steps == [["lower"], ["replace", "-", "_"]]
    assert normalise("Deep-GEMM", steps) == "deep_gemm"
    assert (
        string_steps(
            _fn("""
        def _n(cls, value):
            if isinstance(value, str):
                return value.split(",")
            return value
    """)
        )
        is None
    )
    assert (
        string_steps(
            _fn("""
        def _n(cls, value):
            return value.lower()
    """)
        )
        is None
    )  # a non-string would raise: not a plain normaliser


def test_literals_are_strict_and_normalised() -> None:
    ints = {"check": "literal", "values": [2, 3, 4]}
    assert literal_problem(ints, "2")  # pydantic: "2" is not 2
    assert literal_problem(ints, 2) is None and literal_problem(ints, 2.0) is None
    assert literal_problem(ints, True) is None  # may match 1: not judged
    strs = {"check": "literal", "values": ["auto", "deep_gemm"], "normalise": [["lower"]]}
    assert literal_problem(strs, "AUTO") is None
    assert literal_problem(strs, " auto")
    assert literal_problem(strs, 1)


def test_int_enum_takes_numeric_text() -> None:
    values = [0, 1, 2, 3]
    assert enum_value_problem(values, "2") is None
    assert enum_value_problem(values, " 3") is None
    assert enum_value_problem(values, "1.5") is None  # not judged
    assert enum_value_problem(values, "none")
    assert enum_value_problem(values, "7")
    assert enum_value_problem(["a", "b"], "a") is None
    assert enum_value_problem(["a", "b"], "A")
