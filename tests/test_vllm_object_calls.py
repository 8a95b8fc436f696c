"""Checks in a method of a config object a field holds (builder/object_calls.py), read past
a call that hands the config to code not read (a model's config hook): kept only as model
checks naming that call (condition_walk.py, model_split.py)."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

from servelint.builders.vllm import conditions as builder
from servelint.builders.vllm import model_split
from servelint.builders.vllm.condition_shapes import evaluable
from servelint.builders.wheel import WheelSource

EXTRA = """
TABLE = {"ArchA": "layers"}


@config
class ExtraConfig:
    on: bool = True

    def verify_model(self, model_config):
        field = TABLE.get(model_config.architecture) if model_config is not None else None
        if model_config is None or field is None:
            raise ValueError("needs a supported model")
        if self.on and self.missing:
            raise ValueError("reads a field of the object: launch-only, past the hook")
"""

TOP = """
@config
class ModelConfig:
    model: str = "m"
    hf_config: object = field(init=False)


@config
class TopConfig:
    model_config: ModelConfig | None = None
    extra_config: ExtraConfig | None = None
    size: int = 1

    def __post_init__(self):
        if self.size > 8:
            raise ValueError("before the hook: a plain check")
        hook_fn(self)
        if self.size > 3:
            raise ValueError("past the hook: a warning")
        self._verify_extra()

    def _verify_extra(self):
        model_config = self.model_config
        if self.extra_config is None:
            if not has_layers(model_config):
                return
            self.extra_config = ExtraConfig()
        self.extra_config.verify_model(model_config)
"""


def _field(type_: str, config: str | None = None, init: bool = True) -> dict:
    return {"type": type_, "config": config, "init": init}


PROFILE = {
    "parser": {"actions": [{"dest": "model", "field_of": "ModelConfig"}]},
    "configs": {
        "ModelConfig": {
            "fields": {"model": _field("str"), "hf_config": _field("object", init=False)}
        },
        "ExtraConfig": {"fields": {"on": _field("bool"), "missing": _field("bool")}},
        "TopConfig": {
            "fields": {
                "model_config": _field("ModelConfig | None", "ModelConfig"),
                "extra_config": _field("ExtraConfig | None", "ExtraConfig"),
                "size": _field("int"),
            }
        },
    },
}


@pytest.fixture(scope="module")
def entry(tmp_path_factory: pytest.TempPathFactory) -> dict:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/config/extra.py", EXTRA)
        zf.writestr("vllm/config/top.py", TOP)
    found = builder.class_conditions(WheelSource(wheel), "TopConfig", profile=PROFILE)
    assert found is not None
    return found


def test_a_check_past_the_hook_says_what_it_assumes(entry: dict) -> None:
    """Nothing in the wheel writes ``size`` by name (write_index.py): the check past the
    hook is kept, as a warning naming the hook (after_hooks.py); the one before is plain."""
    before, past = entry["checks"]
    assert before["message"] == "ValueError: before the hook: a plain check"
    assert "after_hooks" not in before
    assert past["message"] == "ValueError: past the hook: a warning"
    assert "vllm/config/top.py:17 hook_fn" in past["after_hooks"]
    assert entry["opaque"] is True


def test_the_object_method_is_a_model_check_naming_the_hook(entry: dict) -> None:
    (check,) = [c for c in entry["model_checks"] if "supported model" in c["message"]]
    assert check["source"] == "vllm/config/extra.py:12"  # the object's own file
    assert check["assumes"] == ["vllm/config/top.py:17"]  # hook_fn(self)
    # past `if E is None: (if not has_layers(M): return) …` E is not None suffices; the
    # field the block assigns is read only where that assignment did not run
    assert check["test"] == "not self.extra_config is None and self.extra_config is not None"
    # the module literal substituted, the model object kept as its own name
    assert "{'ArchA': 'layers'}.get(model_config.architecture)" in check["model"]


def test_a_check_over_a_field_the_object_method_assigns_is_not_kept(entry: dict) -> None:
    kept = [c["message"] for key in ("checks", "model_checks") for c in entry.get(key, [])]
    assert not [m for m in kept if "reads a field" in m]
    # what the object's method may assign is a path of the walked class
    assert "extra_config" in entry["changes"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not (self.a is None and not f(m))", "not self.a is None"),
        ("self.a or f(m)", "self.a"),
        ("self.a > 1", "self.a > 1"),
        ("f(m) or g(m)", None),
        ("not (self.a and f(m))", "not self.a"),
    ],
)
def test_launch_part_is_a_sufficient_condition(text: str, expected: str | None) -> None:
    found = model_split.launch_part(ast.parse(text, mode="eval").body, evaluable)
    assert (ast.unparse(found) if found is not None else None) == expected
