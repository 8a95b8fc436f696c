"""What create_engine_config passes when it computes an argument (builder/engine_locals.py),
the EngineArgs checks of create_engine_config (builder/conditions.py, validators.py) and the
version-parsed fields (builder/version_fields.py, version_values.py)."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

from servelint import profiles
from servelint.builders.vllm import version_fields
from servelint.builders.vllm.engine_locals import passed_values
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, value_of
from servelint.engines.vllm.verdict import static_verdict

METHOD = """
class EngineArgs:
    def helper(self):
        self.touched = 1

    def create_engine_config(self, headless=False):
        external = self.external or self.rank is not None
        if self.nodes > 1:
            if self.rank is None:
                self.rank = self.node_rank
        if self.local is not None:
            size_local = self.local
            if self.hybrid and size_local == 1:
                external = True
        elif self.bad:
            raise ValueError("dead path")
        else:
            size_local = max(self.size, 1)
        self.helper()
        for item in self.items:
            looped = item
        return Cfg(
            external=external,
            local=size_local,
            rank=self.rank or 0,
            touched=self.touched,
            looped=looped,
            plain=self.plain,
            lazy=self.flag and not headless,
        )
"""


def _passed() -> dict[str, str]:
    cls = ast.parse(METHOD).body[0]
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    found = passed_values(methods["create_engine_config"], methods, {"Cfg"}, set())
    assert list(found) == [("Cfg", 22)]
    return found[("Cfg", 22)]


def test_branches_are_joined_and_dead_paths_dropped() -> None:
    passed = _passed()
    assert set(passed) == {"external", "local", "rank", "lazy"}  # touched/looped unknown
    fields = {
        "external": False,
        "rank": None,
        "nodes": 1,
        "node_rank": 0,
        "local": None,
        "hybrid": False,
        "bad": False,
        "size": 4,
        "flag": True,
    }
    launch = Values("EngineArgs", dict(fields))
    assert value_of(passed["external"], launch) is False
    assert value_of(passed["local"], launch) == 4
    assert value_of(passed["rank"], launch) == 0
    ranked = Values("EngineArgs", dict(fields, rank=0))
    assert value_of(passed["external"], ranked) is True
    hybrid = Values("EngineArgs", dict(fields, local=1, hybrid=True))
    assert value_of(passed["external"], hybrid) is True  # set in the nested branch
    assert value_of(passed["local"], hybrid) == 1
    multi = Values("EngineArgs", dict(fields, nodes=2, node_rank=3))
    assert value_of(passed["rank"], multi) == 3  # the dest the branch changed


def test_a_parameter_is_not_known_at_check_time() -> None:
    passed = _passed()
    launch = Values("EngineArgs", {"flag": True})
    assert value_of(passed["lazy"], launch) is not True  # depends on `headless`
    assert value_of(passed["lazy"], Values("EngineArgs", {"flag": False})) is False


def test_create_engine_config_checks_are_judged() -> None:
    prof = profiles.load("vllm", "0.33.0")
    assert prof is not None
    bad = static_verdict(prof, ["m", "--data-parallel-backend", "none"])
    assert not bad.ok and "vllm/engine/arg_utils.py:2547" in bad.message
    assert static_verdict(prof, ["m", "--data-parallel-backend", "ray"]).ok
    nodes = static_verdict(prof, ["m", "--nnodes", "3", "--tensor-parallel-size", "2"])
    assert not nodes.ok and "must evenly divide the total world size (2)" in nodes.message
    assert static_verdict(prof, ["m", "--nnodes", "2", "--tensor-parallel-size", "2"]).ok


OBSERVABILITY = """
from packaging.version import parse
from pydantic import field_validator


@config
class ObsConfig:
    wanted: str | None = None
    other: str | None = None
    loose: str | None = None

    @field_validator("wanted")
    @classmethod
    def _wanted(cls, value):
        if value is not None:
            parse(value)
        return value

    @field_validator("other")
    @classmethod
    def _other(cls, value):
        if value == "x":
            return value
        parse(value)
        return value

    @field_validator("loose")
    @classmethod
    def _loose(cls, value):
        if value:
            parse(value)
        return value
"""


def test_version_fields_read_only_unconditional_parses(tmp_path: Path) -> None:
    wheel = tmp_path / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/obs.py", OBSERVABILITY)
    found = version_fields.extract(WheelSource(wheel), {})["version_fields"]["ObsConfig"]
    assert found == {
        "wanted": {"source": "vllm/config/obs.py:16", "skips_empty": False},
        "loose": {"source": "vllm/config/obs.py:31", "skips_empty": True},
    }  # `other` parses only after a return that may be taken


def test_version_texts_are_judged_by_packaging() -> None:
    prof = profiles.load("vllm", "0.33.0")
    assert prof is not None
    bad = static_verdict(prof, ["m", "--show-hidden-metrics-for-version", "auto"])
    assert not bad.ok and "Invalid version: 'auto'" in bad.message
    for good in ("0.7", "v0.32.0", "1.0rc1"):
        assert static_verdict(prof, ["m", "--show-hidden-metrics-for-version", good]).ok
