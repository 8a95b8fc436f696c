"""Guards written with an assignment expression (engines/vllm/builder/guarded.py): as a
guard, ``(x := E) is None`` tests ``E``, and ``x`` is ``E`` in the statements after it
(vLLM 0.27.1+ ``VllmConfig._post_init_kv_transfer_config``)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint.builders.vllm import conditions as builder
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, holds

KV = """
@config
class KvConfig:
    size: int | None = None
    backend: str | None = None
    connector: str | None = None
    role: str | None = None

    def __post_init__(self):
        self._offload()
        if self.connector is None and self.role is not None:
            raise ValueError("a role needs a connector")
        if (n := self.size) is not None and n < -1:
            raise ValueError("size below -1")
        if self.backend == "x" or (m := self.size) is None:
            pass
        if m == 3:
            raise ValueError("m may be unbound: dropped")

    def _offload(self):
        if (size := self.size) is None:
            return
        if self.backend == "native":
            self.connector = "Offloading"
        self.role = "kv_both"
"""


@pytest.fixture(scope="module")
def kv_src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/kv.py", KV)
    return WheelSource(wheel)


def _test(src: WheelSource, message: str) -> str | None:
    entry = builder.class_conditions(src, "KvConfig")
    assert entry is not None
    found = [c["test"] for c in entry["checks"] if c["message"] == f"ValueError: {message}"]
    return found[0] if found else None


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"size": None, "backend": None, "connector": None, "role": "r"}, True),
        ({"size": None, "backend": None, "connector": "c", "role": "r"}, False),
        # the walrus guard holds: role (and for native, connector) are assigned
        ({"size": 1, "backend": "native", "connector": None, "role": "r"}, False),
        ({"size": 1, "backend": "lmcache", "connector": None, "role": "r"}, False),
    ],
)
def test_a_walrus_guard_is_the_test_of_its_value(
    kv_src: WheelSource, fields: dict, expected: bool
) -> None:
    test = _test(kv_src, "a role needs a connector")
    assert test is not None  # before: the walrus guard was undecidable, the check dropped
    assert "size" in test and ":=" not in test
    assert holds(test, Values("KvConfig", fields)) is expected


def test_a_walrus_target_is_its_value_where_it_certainly_ran(kv_src: WheelSource) -> None:
    test = _test(kv_src, "size below -1")
    assert test == "self.size is not None and self.size < -1"
    assert holds(test, Values("KvConfig", {"size": -2})) is True
    # `m` is bound only when the `or` reaches it: not known after
    assert _test(kv_src, "m may be unbound: dropped") is None
