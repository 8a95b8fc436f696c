"""Validator conditions: the builder's reading of a config class's validators
(engines/vllm/builder/conditions.py, condition_walk.py, engine_build.py), the check-time walker (engines/vllm/conditions.py)
and the values a launch gives a class (engines/vllm/validators.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.vllm import conditions as builder
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import UNKNOWN, Items, Values, holds, reads
from servelint.engines.vllm.field_coerce import coerce
from servelint.engines.vllm.verdict import static_verdict

DEMO = """
from pydantic import field_validator, model_validator

LIMIT = 8


@config
class DemoConfig:
    mode: str = "a"
    size: int = 1
    path: str = ""
    count: int = Field(default=2, ge=0)
    tags: list[str] = field(default_factory=list)
    name: str | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _lower(cls, value):
        return value.lower() if isinstance(value, str) else value

    @field_validator("count")
    @classmethod
    def _count(cls, value):
        if value is None:
            return None
        if value > LIMIT:
            raise ValueError("count too large")
        return value

    def __post_init__(self):
        if self.mode == "b" and not self.path:
            raise ValueError("mode b needs a path")
        self.size = self.size * 2
        if self.size > 4:
            raise ValueError("size after doubling")  # reads a changed field: dropped
        if self.mode == "c":
            return
        assert self.count != 3, "count must not be 3 unless mode c"

    @model_validator(mode="after")
    def _check(self):
        local = self.path
        if local and self.mode != "b":
            raise ValueError(f"path only with mode b, not {self.mode}")
        return self


@config
class OpaqueConfig:
    mode: str = "a"

    def __post_init__(self):
        if self.mode == "x":
            raise ValueError("before helper(self)")
        helper(self)
        if self.mode == "d":
            raise ValueError("after helper(self): nothing is known")

    @model_validator(mode="after")
    def _check(self):
        if self.mode == "e":
            raise ValueError("helper(self) ran before: not known either")
        return self
"""


@pytest.fixture(scope="module")
def demo_src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/demo.py", DEMO)
    return WheelSource(wheel)


def test_builder_keeps_the_conditions_the_argv_decides(demo_src: WheelSource) -> None:
    entry = builder.class_conditions(demo_src, "DemoConfig")
    assert entry is not None
    got = [(c["test"], c["message"], c["method"]) for c in entry["checks"]]
    assert got == [
        ("not self.count is None and self.count > 8", "ValueError: count too large", "_count"),
        (
            "self.mode == 'b' and (not self.path)",
            "ValueError: mode b needs a path",
            "__post_init__",
        ),
        (
            "not self.mode == 'c' and (not self.count != 3)",
            "AssertionError: count must not be 3 unless mode c",
            "__post_init__",
        ),
        (
            "self.path and self.mode != 'b'",
            "ValueError: path only with mode b, not {self.mode}",
            "_check",
        ),
    ]
    assert entry["checks"][1]["source"] == "vllm/config/demo.py:32"  # the raise
    assert entry["converted"] == ["name"]  # the before validator rewrites it
    assert entry["changes"] == ["size"]
    assert "opaque" not in entry
    assert entry["defaults"] == {
        "count": {"value": 2},
        "mode": {"value": "a"},
        "name": {"value": None},
        "path": {"value": ""},
        "size": {"value": 1},
        "tags": {"value": []},
    }


def test_builder_stops_where_self_goes_to_unread_code(demo_src: WheelSource) -> None:
    entry = builder.class_conditions(demo_src, "OpaqueConfig")
    assert entry is not None
    assert [c["test"] for c in entry["checks"]] == ["self.mode == 'x'"]
    assert entry["opaque"] is True  # helper(self) may change any field


def _values(**fields: object) -> Values:
    return Values("Demo", dict(fields))


@pytest.mark.parametrize(
    ("test", "fields", "expected"),
    [
        ("self.mode == 'b' and (not self.path)", {"mode": "b", "path": ""}, True),
        ("self.mode == 'b' and (not self.path)", {"mode": "b", "path": "/x"}, False),
        # an undecided operand the result does not depend on is skipped
        ("self.mode == 'b' and self.path", {"mode": "a", "path": UNKNOWN}, False),
        ("self.mode == 'a' or self.path", {"mode": "a", "path": UNKNOWN}, True),
        ("self.mode == 'b' and self.path", {"mode": "b", "path": UNKNOWN}, None),
        ("self.size % self.count != 0", {"size": 3, "count": 2}, True),
        # Python (and so the engine) fails evaluating it: a rejection
        ("self.size % self.count != 0", {"size": 3, "count": 0}, True),
        # … unless an undecided operand before it may have ended the test
        ("self.path and self.size % self.count", {"path": UNKNOWN, "size": 3, "count": 0}, None),
        ("self.sub is not None and self.sub.x > 1", {"sub": Values("Sub", {"x": 2})}, True),
        ("self.sub.x > 1", {"sub": None}, None),
        ("self.tags and self.mode != 'a'", {"tags": Items(1), "mode": "b"}, True),
        ("len(self.tags) > 1", {"tags": Items(1)}, False),
        ("self.mode.split(':', 1)[0].lower() == 'x'", {"mode": "X:y"}, True),
        ("self.mode < 3", {"mode": "a"}, None),  # a TypeError in Python: undecided
        ("self.missing", {}, None),
        ("__import__('os').system('true')", {}, None),
        ("open('/etc/passwd')", {}, None),
        ("self.mode.__class__", {"mode": "a"}, None),
        ("2 ** self.size > 0", {"size": 10**6}, None),
        ("not valid python (", {}, None),
        # isinstance: the value first, then the types (only built-in ones are known)
        ("isinstance(self.mode, str)", {"mode": "a"}, True),
        ("isinstance(self.mode, (int, float))", {"mode": "a"}, False),
        ("isinstance(self.mode, MyType)", {"mode": "a"}, None),
        ("isinstance(self.size // self.count, MyType)", {"size": 1, "count": 0}, True),
        ("isinstance(self.mode)", {"mode": "a"}, None),
        ("self.x is None", {"x": Values("Sub", {})}, False),
        ("self.flag is True", {"flag": True}, True),
        ("self.mode is 'a'", {"mode": "a"}, None),  # identity of strings: not decided
        ("[d for d in self.devs if d > 1]", {"devs": [1, 2, 3]}, True),
        ("len([d for d in self.devs if d > 5]) > 0", {"devs": [1, 2, 3]}, False),
        ("[d for d in self.devs]", {"devs": UNKNOWN}, None),
        ("'b' if self.flag else ''", {"flag": False}, False),
        ("{self.mode, 'x'} == {'x', 'a'}", {"mode": "a"}, True),
        ("self.sizes[self.index] > 1", {"sizes": (1, 2), "index": 1}, True),
        ("-self.size < 0", {"size": 2}, True),
        ("self.mode.strip().endswith('b')", {"mode": " ab "}, True),
        ("self.opts.get('k') == 1", {"opts": {"k": 1}}, True),
        ("self.opts.popitem()", {"opts": {"k": 1}}, None),  # a method not allowed
        ("lambda: 1", {}, None),  # a node the evaluator does not know
        # nested past what the evaluator compiles: never decided, never an error
        ("(" * 100 + "self.size" + ")" * 100 + " > 1", {"size": 2}, True),
        ("not " * 3000 + "self.flag", {"flag": True}, None),
    ],
)
def test_walker(test: str, fields: dict, expected: bool | None) -> None:
    assert holds(test, _values(**fields)) is expected


def test_reads_lists_the_top_level_fields_in_order() -> None:
    assert reads("self.b and self.a.x or self.b") == ["b", "a"]


@pytest.mark.parametrize(
    ("type_", "value", "expected"),
    [
        ("int", "3", 3),
        ("int", 3.0, 3),
        ("int", True, UNKNOWN),
        ("int", "1_0", UNKNOWN),
        ("bool", "yes", True),
        ("bool", 0, False),
        ("bool", "maybe", UNKNOWN),
        ("str | None", None, None),
        ("str", None, UNKNOWN),
        ("str", 1, UNKNOWN),
        ("float", 1, 1.0),
        ("SomeEnum", "x", UNKNOWN),
        ("int | str", "1", UNKNOWN),
        ("SkipValidation[int]", "1", "1"),  # pydantic keeps the input as it is
        ("SkipValidation[int]", [1], UNKNOWN),
    ],
)
def test_coerce_as_pydantic_lax_mode(type_: str, value: object, expected: object) -> None:
    assert (
        coerce({"type": type_}, value) == expected
        if expected is not UNKNOWN
        else coerce({"type": type_}, value) is UNKNOWN
    )


@pytest.mark.parametrize(
    ("version", "argv", "stage"),
    [
        ("0.21.0", ["m", "--numa-bind-nodes", "0"], "engine_config"),
        ("0.21.0", ["m", "--numa-bind", "--numa-bind-nodes", "0"], "accepted"),
        ("0.21.0", ["m", "--collect-detailed-traces", "all"], "engine_config"),
        ("0.33.0", ["m", "--kv-transfer-config.kv_connector", "NixlConnector"], "parse"),
        (
            "0.33.0",
            [
                "m",
                "--kv-transfer-config.kv_connector",
                "NixlConnector",
                "--kv-transfer-config.kv_role",
                "kv_both",
            ],
            "accepted",
        ),
        ("0.33.0", ["m", "--profiler-config.profiler", "torch"], "parse"),
        ("0.21.0", ["m", "--data-parallel-backend", "MP"], "engine_config"),  # EngineArgs
        ("0.21.0", ["m", "--data-parallel-backend", "ray"], "accepted"),
    ],
)
def test_static_verdict_on_the_releases(version: str, argv: list[str], stage: str) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    assert static_verdict(profile, argv).stage == stage


def test_message_placeholders_print_the_launch_values_and_keep_the_rest():
    from servelint.engines.vllm.conditions import Values, rendered

    values = Values(
        "ParallelConfig", {"tensor_parallel_size": 4, "decode_context_parallel_size": 8}
    )
    message = "tp_size={self.tensor_parallel_size} must be divisible by dcp_size={self.decode_context_parallel_size} ({self.nccl_port})"
    assert rendered(message, values) == (
        "tp_size=4 must be divisible by dcp_size=8 ({self.nccl_port})"
    )


MODEL_DEMO = """
class ModelConfig:
    model: str = "m"
    max_model_len: int | None = None


class EngineArgs:
    model: str = "m"
    loras: dict | None = None
    ep: bool = False

    def create_model_config(self) -> ModelConfig:
        return ModelConfig(model=self.model)

    def create_engine_config(self):
        model_config = self.create_model_config()
        (self.model, other) = (model_config.model, 1)
        if not model_config.is_multimodal_model and self.loras:
            raise ValueError("loras need a multimodal model")
        if model_config.max_model_len and self.loras:
            raise ValueError("reads a field the launch sets: not a model check")
        if self.ep and helper(model_config):
            raise ValueError("reads a module function: not the model's own")
"""


def test_builder_keeps_launch_and_model_tests_as_model_checks(tmp_path: Path) -> None:
    wheel = tmp_path / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/engine/arg_utils.py", MODEL_DEMO)
    profile = {
        "parser": {"actions": [{"dest": "model", "field_of": "ModelConfig"}]},
        "configs": {"ModelConfig": {"fields": {"model": {}, "max_model_len": {}}}},
    }
    entry = builder.class_conditions(
        WheelSource(wheel),
        "EngineArgs",
        prefer="engine/arg_utils",
        extra=("create_engine_config",),
        profile=profile,
    )
    assert entry is not None
    assert entry["checks"] == []
    assert [(c["test"], c["model"], c["source"]) for c in entry["model_checks"]] == [
        ("self.loras", "not model_config.is_multimodal_model", "vllm/engine/arg_utils.py:19")
    ]


@pytest.mark.parametrize(
    ("version", "argv", "only_if"),
    [
        (
            "0.21.0",
            ["m", "--default-mm-loras", '{"image": "/l"}'],
            "not model_config.is_multimodal_model",
        ),
        ("0.21.0", ["m"], ""),
    ],
)
def test_model_check_is_a_model_dependent_verdict(
    version: str, argv: list[str], only_if: str
) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, argv)
    assert verdict.only_if == only_if
    assert verdict.ok is not bool(only_if)


SPEC_DEMO = """
from typing import Literal, get_args

InnerTypes = Literal["x_mtp", "y_mtp"]
MTPTypes = Literal["mtp", InnerTypes]


@config
class SpecDemoConfig:
    method: str | None = None
    model: str | None = None
    tokens: int | None = None

    def __post_init__(self):
        if self.method in get_args(MTPTypes) and self.method != "mtp":
            self.method = "mtp"
        if self.model is None and self.tokens is not None:
            if self.method == "mtp":
                self.model = "target"
            else:
                raise ValueError("tokens without a model")
"""


def test_builder_reads_get_args_of_a_literal_alias(tmp_path: Path) -> None:
    # the shape of vLLM 0.33.0 SpeculativeConfig.__post_init__ (vllm/config/speculative.py:
    # 1246-1293): the rename guard is exact once get_args(Alias) is the alias's values, so the
    # check holds for a method outside them and not for one renamed to mtp
    wheel = tmp_path / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/spec_demo.py", SPEC_DEMO)
    entry = builder.class_conditions(WheelSource(wheel), "SpecDemoConfig")
    assert entry is not None
    (check,) = entry["checks"]
    assert "('mtp', 'x_mtp', 'y_mtp')" in check["test"]
    assert "get_args" not in check["test"]

    def verdict(method: str | None) -> bool | None:
        fields = {"method": method, "model": None, "tokens": 3}
        return holds(check["test"], Values("SpecDemoConfig", fields))

    assert verdict("eagle") is True
    assert verdict("x_mtp") is False  # renamed to mtp: the target model is its draft
    assert verdict("mtp") is False


@pytest.mark.parametrize(
    ("version", "argv", "refusal"),
    [
        # num_speculative_tokens with a method that has no draft of its own and no model
        # (vllm/config/speculative.py:1293)
        ("0.33.0", ["m", "--spec-method", "eagle", "--spec-tokens", "3"], "without speculative"),
        ("0.33.0", ["m", "--spec-method", "qwen3_5_mtp", "--spec-tokens", "3"], ""),
        # EngineArgs' data-parallel checks over dests create_engine_config changes itself
        # (vllm/engine/arg_utils.py:2451, :2520)
        ("0.33.0", ["m", "--enable-fault-tolerance"], "Fault tolerance requires external"),
        ("0.33.0", ["m", "-dp", "2", "--data-parallel-rank", "0", "--enable-fault-tolerance"], ""),
        ("0.33.0", ["m", "-dp", "4", "--data-parallel-hybrid-lb"], "requires `--data-parallel-size-l"),
        ("0.33.0", ["m", "-dp", "4", "--data-parallel-size-local", "2", "--data-parallel-hybrid-lb"],
         ""),
        # an EngineArgs assert dividing by a dest (vllm/engine/arg_utils.py:1184)
        ("0.11.0", ["m", "--decode-context-parallel-size", "0"], "ZeroDivisionError"),
        ("0.11.0", ["m", "-tp", "4", "--decode-context-parallel-size", "2"], ""),
        # a V0 fallback where no V0 is left (vllm/engine/arg_utils.py:1456, :1469;
        # vllm/entrypoints/openai/api_server.py:209 asserts envs.VLLM_USE_V1)
        ("0.11.0", ["m", "--logits-processor-pattern", "x"], "--logits-processor-pattern"),
        ("0.11.0", ["m", "--max-num-partial-prefills", "2"], "Concurrent Partial Prefill"),
        ("0.11.0", ["m", "--max-num-partial-prefills", "1"], ""),
        ("0.10.2", ["m", "--max-num-partial-prefills", "2"], ""),  # V0 still there: falls back
    ],
)
def test_static_verdict_on_late_classes(version: str, argv: list[str], refusal: str) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, argv)
    if refusal:
        assert (verdict.stage, refusal in verdict.message) == ("engine_config", True)
    else:  # no error; a model-dependent warning (only_if) may remain
        assert verdict.ok or verdict.only_if, verdict.message


V1_ORACLE = """
class SchedulerConfig:
    max_num_partial_prefills: int = 1


class EngineArgs:
    pattern: str | None = None
    partial: int = SchedulerConfig.max_num_partial_prefills

    def _is_v1_supported_oracle(self, model_config):
        if self.pattern != EngineArgs.pattern:
            _raise_or_fallback(feature_name="--pattern", recommend_to_remove=False)
            return False
        if not model_config.is_v1_compatible:
            _raise_or_fallback(feature_name=model_config.architectures, recommend_to_remove=False)
            return False
        if self.partial != SchedulerConfig.max_num_partial_prefills:
            _raise_or_fallback(feature_name="Partial", recommend_to_remove=False)
            return False
        return True
"""

V1_SERVER = """
async def build_client(engine_args):
    vllm_config = engine_args.create_engine_config(usage_context=None)
    assert envs.VLLM_USE_V1
"""


@pytest.mark.parametrize("asserted", [True, False])
def test_v1_fallback_checks_only_where_no_v0_is_left(tmp_path: Path, asserted: bool) -> None:
    # the shape of vLLM 0.11.0 EngineArgs._is_v1_supported_oracle (vllm/engine/arg_utils.py:
    # 1450-1477) and its entrypoint (vllm/entrypoints/openai/api_server.py:206-209)
    from servelint.builders.vllm import v1_fallback

    wheel = tmp_path / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/engine/arg_utils.py", V1_ORACLE)
        server = V1_SERVER if asserted else V1_SERVER.replace("assert envs.VLLM_USE_V1", "pass")
        zf.writestr("vllm/entrypoints/openai/api_server.py", server)
    found = v1_fallback.checks(WheelSource(wheel))
    if not asserted:  # V0 is there: the fallback runs, nothing fails
        assert found == []
        return
    # the model test is left out; class defaults become literals
    assert [(c["test"], c["reads"]) for c in found] == [
        ("self.pattern != None", ["pattern"]),
        ("self.partial != 1", ["partial"]),
    ]
    assert found[0]["source"] == "vllm/engine/arg_utils.py:11"
    assert "api_server.py:4 asserts envs.VLLM_USE_V1" in found[0]["message"]
    assert holds(found[1]["test"], Values("EngineArgs", {"partial": 2})) is True
    assert holds(found[1]["test"], Values("EngineArgs", {"partial": 1})) is False


def test_get_args_of_a_literal_alias_lists_each_value_once(tmp_path: Path) -> None:
    # typing.Literal dedups its args: Literal["kv_both", "kv_producer", Inner] with Inner
    # holding "kv_both" again gives each value once (vllm/config/kv_transfer.py KVRole)
    wheel = tmp_path / "vllm-0.0.0-py3-none-any.whl"
    text = SPEC_DEMO.replace('InnerTypes = Literal["x_mtp", "y_mtp"]',
                             'InnerTypes = Literal["x_mtp", "mtp", "y_mtp"]')
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/spec_demo.py", text)
    (check,) = builder.class_conditions(WheelSource(wheel), "SpecDemoConfig")["checks"]
    assert "('mtp', 'x_mtp', 'y_mtp')" in check["test"]
