"""Checks after a hook the condition walker does not read (builder/after_hooks.py), judged by
the wheel's write index (builder/write_index.py): kept, as a warning that says what it
assumes, only when no code in the wheel writes what they read by name."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint.builders.vllm import conditions as builder
from servelint.builders.vllm import write_index
from servelint.builders.wheel import WheelSource

CONFIG = """
from vllm.platforms import current_platform


@config
class TransferConfig:
    connector: str | None = None
    role: str | None = None
    extra: dict = None


@config
class TopConfig:
    transfer: TransferConfig | None = None
    size: int | None = None
    touched: int | None = None

    def __post_init__(self):
        current_platform.check_and_update_config(self)
        if self.transfer is not None and self.transfer.connector is None:
            raise ValueError("no connector")
        if self.touched is None and self.size is not None:
            raise ValueError("touched is written by name elsewhere: dropped")
        if self.transfer is not None and self.transfer.extra:
            raise ValueError("a dict may change in place: dropped")
"""

ELSEWHERE = """
class Worker:
    def __init__(self, cfg):
        self.connector = "mine"  # a Worker's own field, not a TransferConfig's
        cfg.touched = 1  # any object


def fill(obj, values):
    for key, value in values.items():
        setattr(obj, key, value)  # a computed name: may be any


def fixed(obj):
    for key in ("role", "size"):
        setattr(obj, key, None)  # only these names
    fresh = Worker(obj)
    setattr(fresh, values_key(), 1)  # a new object: changes no earlier one


def values_key():
    return "connector"
"""

PROFILE = {
    "configs": {
        "TopConfig": {
            "fields": {
                "transfer": {"type": "TransferConfig | None", "config": "TransferConfig"},
                "size": {"type": "int | None"},
                "touched": {"type": "int | None"},
            }
        },
        "TransferConfig": {
            "fields": {
                "connector": {"type": "str | None"},
                "role": {"type": "str | None"},
                "extra": {"type": "dict"},
            }
        },
    }
}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/top.py", CONFIG)
        zf.writestr("vllm/worker.py", ELSEWHERE)
    return WheelSource(wheel)


def test_the_write_index_reads_receivers_and_keys(src: WheelSource) -> None:
    index = write_index.index(src)
    # `self.connector` of Worker does not write a TransferConfig; `cfg.touched` may
    assert index.written("connector", "TransferConfig") is None
    assert index.written("connector", "Worker") is not None
    assert index.written("touched", "TopConfig") is not None
    _, dynamic = index.writers("connector", "TransferConfig")
    # `fill` may write any name; `fixed`'s loop only role/size; the fresh Worker nothing
    assert [w.where for w in dynamic] == ["vllm/worker.py:10"]
    _, role = index.writers("role", "TransferConfig")
    assert sorted(w.where for w in role) == ["vllm/worker.py:10", "vllm/worker.py:15"]


def test_a_check_after_a_hook_is_kept_only_where_nothing_writes_it_by_name(
    src: WheelSource,
) -> None:
    entry = builder.class_conditions(src, "TopConfig", profile=PROFILE)
    assert entry is not None
    assert entry.get("opaque")  # as a nested object, any field may have changed
    checks = {c["message"]: c for c in entry["checks"]}  # the walk went on past the hook
    kept = checks["ValueError: no connector"]
    assert kept["test"] == "self.transfer is not None and self.transfer.connector is None"
    # a warning naming the hook and what it may set
    assert "vllm/config/top.py:19 current_platform.check_and_update_config" in kept["after_hooks"]
    assert "transfer.connector" in kept["after_hooks"]
    assert len(checks) == 1  # `touched` has a write by name; `extra` is a dict


def test_without_a_profile_a_hook_still_ends_the_walk(src: WheelSource) -> None:
    entry = builder.class_conditions(src, "TopConfig")
    assert entry is not None and entry.get("opaque") and not entry["checks"]
