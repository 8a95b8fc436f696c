"""Config field types of the older vLLM layout (0.11.0: pydantic dataclasses, string and
``Optional[...]`` annotations, a ``LazyLoader`` module alias) read by the builder, and how
the check side judges a dotted or JSON value against them (json_config)."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import pytest

from servelint.builders.astutil import ModuleIndex
from servelint.builders.vllm.init_vars import init_var_fields
from servelint.builders.vllm.parser_types import TypeResolver
from servelint.builders.vllm.pydantic_classes import pydantic_validated
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.json_config import _value_problem, dotted_value

FILES = {
    "vllm/utils/__init__.py": """
        import types

        class LazyLoader(types.ModuleType):
            def __init__(self, local_name, parent_module_globals, name):
                self._local_name = local_name
                super().__init__(str(name))

        class NotAModule:
            def __init__(self, local_name, parent_module_globals, name):
                pass
    """,
    "vllm/model_executor/layers/quantization/__init__.py": """
        from typing import Literal
        QuantizationMethods = Literal["awq", "fp8"]
    """,
    "vllm/config/utils.py": """
        from pydantic.dataclasses import dataclass

        def config(cls=None, **kwargs):
            def decorator(cls):
                return dataclass(cls, **kwargs)
            return decorator(cls) if cls is not None else decorator
    """,
    "vllm/config/speculative.py": """
        from typing import TYPE_CHECKING, Optional
        import dataclasses
        from dataclasses import InitVar
        from pydantic.dataclasses import dataclass
        from vllm.config.utils import config
        from vllm.utils import LazyLoader, NotAModule

        if TYPE_CHECKING:
            import vllm.model_executor.layers.quantization as me_quant
        else:
            me_quant = LazyLoader("model_executor", globals(),
                                  "vllm.model_executor.layers.quantization")
            other = NotAModule("x", globals(), "vllm.model_executor.layers.quantization")

        @dataclass
        class SpeculativeConfig:
            quantization: Optional[me_quant.QuantizationMethods] = None
            other_quant: Optional[other.QuantizationMethods] = None

        @config
        class NewConfig:
            x: int = 0

        @dataclasses.dataclass
        class PlainConfig:
            x: int = 0

        class Derived(SpeculativeConfig):
            pass

        @dataclass
        class ModelConfig:
            model: str = "m"
            limit_mm_per_prompt: InitVar[Optional[dict[str, int]]] = None
    """,
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> ModuleIndex:
    path = tmp_path_factory.mktemp("cfg") / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in FILES.items():
            zf.writestr(name, textwrap.dedent(text))
        zf.writestr("vllm-0.0.1.dist-info/METADATA", "Name: vllm\nVersion: 0.0.1\n")
    return ModuleIndex(WheelSource(Path(path)))


def _hints(index: ModuleIndex, field: str) -> set[str]:
    cls = index.resolve("vllm.config.speculative", "SpeculativeConfig")
    stmt = next(s for s in cls.node.body if getattr(s.target, "id", "") == field)
    return {f"{h.kind}:{h.args}" for h in TypeResolver(index).hints(cls.module, stmt.annotation)}


def test_lazy_loader_alias_resolves_to_the_module(index: ModuleIndex) -> None:
    assert _hints(index, "quantization") == {"literal:('awq', 'fp8')", "none:()"}
    # a proxy class that is no ModuleType subclass stays unresolved (never judged)
    assert "literal:('awq', 'fp8')" not in _hints(index, "other_quant")


@pytest.mark.parametrize(
    ("name", "validated"),
    [
        ("SpeculativeConfig", True),  # pydantic.dataclasses.dataclass
        ("NewConfig", True),  # a decorator of the wheel that calls it
        ("PlainConfig", False),  # a stdlib dataclass takes any value
        ("Derived", True),  # through its base
    ],
)
def test_pydantic_validated(index: ModuleIndex, name: str, validated: bool) -> None:
    d = index.resolve("vllm.config.speculative", name)
    assert pydantic_validated(index, d) is validated


INT = {"check": "number", "type": "int", "none": True}
FLOAT = {"check": "number", "type": "float", "none": True}


@pytest.mark.parametrize("text", [" 1 ", "+1", "1_000", "1.0", "1.00", "0-1", "0__1", "00"])
def test_int_texts_pydantic_reads(text: str) -> None:
    assert _value_problem(INT, text) is None


@pytest.mark.parametrize("text", ["1k", "1K", "1e3", "1.5", "0x10", "_1", "", "x", "1 0"])
def test_int_texts_pydantic_refuses(text: str) -> None:
    assert "is not a valid integer" in _value_problem(INT, text)


@pytest.mark.parametrize(
    ("text", "problem"), [("1_.", False), ("._1", False), ("1e3", False), ("1k", True), ("", True)]
)
def test_float_texts(text: str, problem: bool) -> None:
    assert bool(_value_problem(FLOAT, text)) is problem


@pytest.mark.parametrize(
    ("human", "text", "value"),
    [
        (False, "1k", "1k"),  # 0.11.0 keeps the text
        (True, "1k", 1000),  # 0.21.0 (argparse_utils.human_readable_int)
        (True, "1K", 1024),
        (True, "1.5K", "1.5K"),  # decimals with a binary suffix stay text
        (True, '{"a": 1}', {"a": 1}),
    ],
)
def test_dotted_value(human: bool, text: str, value: object) -> None:
    assert dotted_value({"dotted_human_int": human}, text) == value


def test_init_vars_are_read(index: ModuleIndex) -> None:
    d = index.resolve("vllm.config.speculative", "ModelConfig")
    (f,) = init_var_fields(index, d)
    assert (f.name, f.line) == ("limit_mm_per_prompt", 35)
    hints = TypeResolver(index).hints(f.module, f.annotation)
    assert {h.name for h in hints} == {"dict", "NoneType"}  # InitVar[...] unwrapped
