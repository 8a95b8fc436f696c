"""Registry lookups a config method makes under a guard over its own fields
(engines/vllm/builder/guarded_lookups.py, check side engines/vllm/guarded_lookup_checks.py),
and guards that read a field before a later assignment of it (builder/guarded.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.vllm import conditions as builder
from servelint.builders.vllm.guarded_lookups import changed_when, guarded_lookups
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, holds
from servelint.engines.vllm.verdict import static_verdict

THINK = """
class ThinkConfig:
    parser: str = ""
    start: str = ""
    end: str = ""
    _ids: list[int] | None = None

    def init_ids(self, model):
        if self._ids is not None:
            return
        start = self.start
        if self.parser is not None and (not start or not self.end):
            cls = Manager.get_parser(self.parser)
            start = cls.start
        self._ids = [1]

    def loop(self):
        for name in names:
            Manager.get_parser(self.parser)  # in a loop: not followed


class LaneConfig:
    size: int = 1
    local: int = 1
    lb: bool = False

    def __post_init__(self):
        if self.size > 1 or self.local == 0:
            self.port = 1
        else:
            self.size = read_env()
            if self.lb:
                raise ValueError("lb needs size > 1")
"""

CALLER = """
def build(cfg):
    cfg.think_config.init_ids(None)
"""

ARG_UTILS = """
class EngineArgs:
    parser: str = ""
    think_config: ThinkConfig | None = None
    other_config: dict | None = None

    def _defaults(self):
        if not self.parser:
            return
        if self.think_config is None:
            self.think_config = ThinkConfig()
        self.think_config.parser = self.parser

    def _always(self):
        self.other_config = {}
"""


@pytest.fixture(scope="module")
def think_src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/think.py", THINK)
        zf.writestr("vllm/config/caller.py", CALLER)
        zf.writestr("vllm/engine/arg_utils.py", ARG_UTILS)
    return WheelSource(wheel)


def test_a_guarded_lookup_keeps_its_guard(think_src: WheelSource) -> None:
    found = guarded_lookups(think_src, "get_parser", set())
    assert [(g.cls, g.field, g.source) for g in found] == [
        ("ThinkConfig", "parser", "vllm/config/think.py:13")
    ]  # the lookup in a loop is not followed
    test = found[0].test
    assert test == (
        "not self._ids is not None and (self.parser is not None and "
        "(not self.start or not self.end))"
    )
    both = {"_ids": None, "parser": "", "start": "<a>", "end": "</a>"}
    assert holds(test, Values("ThinkConfig", both)) is False  # both strings: no lookup
    assert holds(test, Values("ThinkConfig", {**both, "end": ""})) is True
    # the unconditional ones (value_checks.looked_up_fields) are not repeated
    assert guarded_lookups(think_src, "get_parser", {("ThinkConfig", "parser")}) == []


def test_what_engine_args_changes_on_the_object_first(think_src: WheelSource) -> None:
    assert changed_when(think_src, "think_config") == [
        "not not self.parser",
        "not not self.parser and self.think_config is None",
    ]
    assert changed_when(think_src, "other_config") is None  # assigned without a guard


def test_a_guard_sees_the_fields_as_they_were_when_it_was_tested(think_src: WheelSource) -> None:
    entry = builder.class_conditions(think_src, "LaneConfig")
    assert entry is not None
    tests = [c["test"] for c in entry["checks"] if c["message"] == "ValueError: lb needs size > 1"]
    # `size` is assigned in the branch, after its test read the launch's value
    assert tests == ["not (self.size > 1 or self.local == 0) and self.lb"]


@pytest.mark.parametrize(
    ("version", "argv", "rejected"),
    [
        # ReasoningConfig.initialize_token_ids looks "" up (vllm/config/reasoning.py:77)
        ("0.21.0", ["m", "--reasoning-config", "{}"], True),
        ("0.27.1", ["m", "--reasoning-config.reasoning_start_str", "<think>"], True),
        ("0.27.1", ["m", "--reasoning-config", '{"reasoning_parser": "nope"}'], True),
        # both strings set: no lookup
        (
            "0.21.0",
            ["m", "--reasoning-config", '{"reasoning_start_str": "a", "reasoning_end_str": "b"}'],
            False,
        ),
        ("0.21.0", ["m", "--reasoning-config", '{"reasoning_parser": "deepseek_r1"}'], False),
        # EngineArgs._set_default_reasoning_config_args sets the field from --reasoning-parser
        ("0.21.0", ["m", "--reasoning-parser", "deepseek_r1", "--reasoning-config", "{}"], False),
        # a plugin may register more names
        ("0.21.0", ["m", "--reasoning-parser-plugin", "p.py", "--reasoning-config", "{}"], False),
        # 0.33.0 looks it up only `if self.reasoning_parser:`
        ("0.33.0", ["m", "--reasoning-config", "{}"], False),
        # ParallelConfig.__post_init__ (vllm/config/parallel.py:415, 0.11.0)
        ("0.11.0", ["m", "--data-parallel-rank", "0"], True),
        ("0.11.0", ["m", "--data-parallel-rank", "0", "--data-parallel-size", "2"], False),
    ],
)
def test_on_the_releases(version: str, argv: list[str], rejected: bool) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, argv)
    assert (verdict.stage == "engine_config" and not verdict.ok) is rejected, verdict.message


LANES = """
from pydantic import model_validator
import vllm.envs as envs


class LaneConfig:
    size: int = 1
    local: int = 1
    lb: bool = False

    def __post_init__(self):
        if self.size > 1 or self.local == 0:
            self.port = 1
        else:
            self.size = envs.LANE_SIZE

    @model_validator(mode="after")
    def _check(self):
        if self.size <= 1 and self.lb:
            raise ValueError(f"lb needs size > 1, got {self.size}")
        return self
"""


def test_a_value_read_from_the_env_is_its_default_where_the_env_does_not_set_it(
    tmp_path: Path,
) -> None:
    wheel = tmp_path / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/lanes.py", LANES)
    registry = {"LANE_SIZE": {"type": "int", "default": "1", "source": "vllm/envs.py:9"}}
    entry = builder.class_conditions(
        WheelSource(wheel), "LaneConfig", profile={"env": {"registry": registry}}
    )
    assert entry is not None
    checks = [c for c in entry["checks"] if c["message"].startswith("ValueError: lb needs")]
    # where the else branch ran, size holds envs.LANE_SIZE (default "1")
    assert [(c["test"], c.get("env")) for c in checks] == [
        ("(self.size <= 1 and self.lb) and (self.size > 1 or self.local == 0)", None),
        ("not (self.size > 1 or self.local == 0) and (1 <= 1 and self.lb)", ["LANE_SIZE"]),
    ]
    # the message prints the value the engine holds there
    assert checks[1]["message"] == "ValueError: lb needs size > 1, got {1}"


@pytest.mark.parametrize(
    ("argv", "env", "rejected"),
    [
        # ParallelConfig.__post_init__ sets data_parallel_size = envs.VLLM_DP_SIZE (default 1)
        # where the launch's is <= 1 (vllm/config/parallel.py:813), then :435 refuses an
        # external LB, :429 a larger local size
        (["m", "--data-parallel-rank", "0"], None, True),
        (["m", "--data-parallel-rank", "0"], {"VLLM_DP_SIZE": "2"}, False),
        (["m", "--data-parallel-size-local", "2"], None, True),
        (["m", "--data-parallel-size-local", "2", "--data-parallel-size", "2"], None, False),
    ],
)
def test_the_dp_size_from_the_env_on_0_21(
    argv: list[str], env: dict[str, str] | None, rejected: bool
) -> None:
    profile = profiles.load("vllm", "0.21.0")
    assert profile is not None
    verdict = static_verdict(profile, argv, env)
    assert (verdict.stage == "engine_config" and not verdict.ok) is rejected, verdict.message


def test_a_call_on_a_module_keeps_the_computed_arguments() -> None:
    # `envs.validate_environ(…)` in create_engine_config (0.21.0 vllm/engine/arg_utils.py:1650)
    # rebinds no local: data_parallel_size_local stays computed (builder/engine_locals.py)
    profile = profiles.load("vllm", "0.21.0")
    assert profile is not None
    built = profile.data["conditions"]["ParallelConfig"]["built"]["fields"]
    assert "expr" in (built.get("data_parallel_size_local") or {})


@pytest.mark.parametrize("version", ["0.11.1", "0.14.0", "0.17.0", "0.20.2"])
def test_a_long_guard_keeps_the_conjunct_that_decides(version: str) -> None:
    # SpeculativeConfig: num_speculative_tokens is filled from the draft model only under
    # `self.model is not None or …` (vllm/config/speculative.py); that conjunct of the long
    # bound is kept, so `{}` (no draft model) is refused for the missing token count,
    # model-dependently (maybe_override_with_speculators may replace the dict)
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, ["m", "--speculative-config", "{}"])
    assert verdict.stage == "engine_config" and not verdict.ok, verdict.message
    assert "num_speculative_tokens must be provided" in verdict.message
    assert "maybe_override_with_speculators" in verdict.only_if
    assert static_verdict(profile, ["m", "--speculative-config", '{"model": "d"}']).ok
