"""Fields a validator assigns only under guards (engines/vllm/builder/guarded.py) and the
classes EngineArgs builds from a plain JSON option's dict (builder/dict_built.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.vllm import conditions as builder
from servelint.builders.vllm import dict_built
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, holds
from servelint.engines.vllm.verdict import static_verdict

SPEC = """
from pydantic import model_validator


@config
class SpecConfig:
    model: str | None = None
    method: str | None = None
    tokens: int | None = None
    lookup: int | None = None
    extra: int = 0

    def __post_init__(self):
        if self.method is None and self.model == "ngram":
            self.method = "ngram"
        if self.method == "suffix":
            self._suffix()
        if self.model is not None:
            n = getattr(self.model, "n_predict", None)
            if n is not None and self.tokens is None:
                self.tokens = n
        self.extra = self.extra + 1
        self.lookup = self.lookup or 0

    def _suffix(self):
        if self.tokens is None:
            self.tokens = 24

    @model_validator(mode="after")
    def _verify(self):
        if self.tokens is None:
            raise ValueError("tokens must be provided")
        if self.extra > 3:
            raise ValueError("extra changed unconditionally: dropped")
        if self.lookup == 0 and self.method == "ngram":
            raise ValueError("lookup assigned without a guard: dropped")
        return self
"""

ARG_UTILS = """
class EngineArgs:
    spec_config: dict | None = None
    spec_tokens: int | None = None
    other: dict | None = None

    def create_spec_config(self, target):
        for flag, key, value in (("--spec-tokens", "tokens", self.spec_tokens),):
            if value is None:
                continue
            if self.spec_config is None:
                self.spec_config = {}
            self.spec_config[key] = value
        if self.spec_config is None:
            return None
        self.spec_config = {k.replace("-", "_"): v for k, v in self.spec_config.items()}
        self.spec_config.update({"target": target})
        return SpecConfig(**self.spec_config)

    def create_engine_config(self):
        (self.model, self.spec_config) = override(self.model, self.spec_config)
        self.other.pop("x")
        return OtherConfig(**self.other)
"""


@pytest.fixture(scope="module")
def spec_src(tmp_path_factory: pytest.TempPathFactory) -> WheelSource:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/spec.py", SPEC)
        zf.writestr("vllm/engine/arg_utils.py", ARG_UTILS)
    return WheelSource(wheel)


def _check(entry: dict, message: str) -> str | None:
    found = [c["test"] for c in entry["checks"] if c["message"] == f"ValueError: {message}"]
    return found[0] if found else None


def test_a_field_assigned_under_decidable_guards_keeps_its_test(spec_src: WheelSource) -> None:
    entry = builder.class_conditions(spec_src, "SpecConfig")
    assert entry is not None
    test = _check(entry, "tokens must be provided")
    # tokens is set only by _suffix (method "suffix") or from the draft model (model given);
    # method's own assignment ("ngram") cannot make it "suffix"
    assert test == (
        "self.tokens is None and (not (self.method == 'suffix' and self.tokens is None)"
        " and (not (self.model is not None and self.tokens is None)))"
    )
    assert _check(entry, "extra changed unconditionally: dropped") is None
    assert _check(entry, "lookup assigned without a guard: dropped") is None


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"model": None, "method": None, "tokens": None}, True),  # nothing sets tokens
        ({"model": "ngram", "method": None, "tokens": None}, False),  # may be the draft's
        ({"model": None, "method": "suffix", "tokens": None}, False),  # _suffix sets it
        ({"model": None, "method": "ngram", "tokens": None}, True),
        ({"model": None, "method": None, "tokens": 3}, False),
    ],
)
def test_the_recorded_test_holds_only_where_the_engine_raises(
    spec_src: WheelSource, fields: dict, expected: bool
) -> None:
    entry = builder.class_conditions(spec_src, "SpecConfig")
    assert entry is not None
    test = _check(entry, "tokens must be provided")
    assert test is not None
    assert holds(test, Values("SpecConfig", fields)) is expected


def test_dict_built_reads_what_engine_args_does_to_the_dict(spec_src: WheelSource) -> None:
    got = dict_built.extract(spec_src, {"SpecConfig", "OtherConfig"})
    assert got == {
        "SpecConfig": {
            "dest": "spec_config",
            "source": "vllm/engine/arg_utils.py:18",
            "keys": {"target": "", "tokens": "spec_tokens"},
            "rekey": [["-", "_"]],
            "replaced_by": ["override (vllm/engine/arg_utils.py:21)"],
            "created": True,  # --spec-tokens alone starts a dict
        }
    }  # OtherConfig: `pop` on its dict is not a shape read here, so it is left out


@pytest.mark.parametrize(
    ("version", "argv", "stage", "model_dependent"),
    [
        # SpeculativeConfig._verify_args: no num_speculative_tokens and nothing that sets it
        ("0.11.0", ["m", "--speculative-config", "{}"], "engine_config", True),
        ("0.11.0", ["m", "--speculative-config", '{"method": "ngram"}'], "engine_config", True),
        ("0.27.1", ["m", "--speculative-config", "{}"], "engine_config", True),
        ("0.33.0", ["m", "--speculative-config.quantization", "awq"], "engine_config", True),
        # --spec-tokens fills the key from its own value
        ("0.33.0", ["m", "--speculative-config", "{}", "--spec-tokens", "2"], "accepted", False),
        # --spec-method alone starts the dict (vllm/engine/arg_utils.py:2115)
        ("0.33.0", ["m", "--spec-method", "ngram"], "engine_config", True),
        ("0.33.0", ["m", "--spec-method", "ngram", "--spec-tokens", "3"], "accepted", False),
        # a draft model's config may give n_predict: undecided
        ("0.11.0", ["m", "--speculative-config", '{"model": "d"}'], "accepted", False),
        (
            "0.33.0",
            ["m", "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2}'],
            "accepted",
            False,
        ),
    ],
)
def test_speculative_config_on_the_releases(
    version: str, argv: list[str], stage: str, model_dependent: bool
) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, argv)
    assert verdict.stage == stage, verdict.message
    assert bool(verdict.only_if) is model_dependent
    if model_dependent:
        assert "maybe_override_with_speculators" in verdict.only_if
