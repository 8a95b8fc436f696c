"""Calls the validator-condition builder follows out of a class
(engines/vllm/builder/condition_calls.py): a module-level function or a static/class method
called with ``self.<field>`` chains, its raises recorded on the caller's fields."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint.builders.vllm import conditions as builder
from servelint.builders.wheel import WheelSource

FACTORY = """
class Factory:
    @classmethod
    def get_class(cls, transfer):
        name = transfer.connector
        if name is None:
            raise ValueError("Connector name is not set")
        if transfer.path is not None and not transfer.path:
            raise ValueError("path cannot be empty")
        return cls._registry[name]

    @classmethod
    def supports(cls, transfer):
        found = cls.get_class(transfer)
        return found.ok

    @staticmethod
    def reset(transfer):
        transfer.connector = "Default"


def check_port(port):
    if port < 0:
        raise ValueError("negative port")
"""

CONFIG = """
from vllm.factory import check_port


@config
class DemoConfig:
    transfer: TransferConfig | None = None
    port: int = 0
    mode: str = "a"

    def __post_init__(self):
        check_port(self.port)
        if self.transfer is not None:
            from vllm.factory import Factory

            if not Factory.supports(self.transfer):
                pass
        unknown(self.port)
        check_port(port=self.port)


@config
class ResetConfig:
    transfer: TransferConfig | None = None

    def __post_init__(self):
        from vllm.factory import Factory

        Factory.reset(self.transfer)
        Factory.get_class(self.transfer)
"""


@pytest.fixture(scope="module")
def calls_src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/factory.py", FACTORY)
        zf.writestr("vllm/config/demo.py", CONFIG)
    return WheelSource(wheel)


def test_raises_of_a_called_function_land_on_the_callers_fields(
    calls_src: WheelSource,
) -> None:
    entry = builder.class_conditions(calls_src, "DemoConfig")
    assert entry is not None
    got = [(c["source"], c["test"], c["message"]) for c in entry["checks"]]
    assert got == [
        (
            "vllm/factory.py:7",
            "self.transfer is not None and self.transfer.connector is None",
            "ValueError: Connector name is not set",
        ),
        (
            "vllm/factory.py:9",
            "self.transfer is not None and (self.transfer.path is not None and "
            "(not self.transfer.path))",
            "ValueError: path cannot be empty",
        ),
        ("vllm/factory.py:24", "self.port < 0", "ValueError: negative port"),
    ]  # the call with a keyword argument and the unknown function: not followed


def test_a_callee_that_assigns_its_argument_changes_the_callers_field(
    calls_src: WheelSource,
) -> None:
    entry = builder.class_conditions(calls_src, "ResetConfig")
    assert entry is not None
    # Factory.reset set transfer.connector (no longer the argv's); transfer.path still is
    assert [c["test"] for c in entry["checks"]] == [
        "self.transfer.path is not None and (not self.transfer.path)"
    ]
    assert entry["changes"] == ["transfer"]
