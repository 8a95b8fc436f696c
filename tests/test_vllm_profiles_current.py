"""Every committed vLLM profile holds the facts the current builder records.

Profiles built before a builder change lack its facts without any sign of it (all carry
builder version 1): 37 of 39 releases had no CacheConfig/SchedulerConfig/VllmConfig, no
``Field`` bounds and no per-field value checks, so ``--gpu-memory-utilization 1.5`` passed on
them. ``tools/rebuild_vllm_profiles.py`` rebuilds them all; these tests fail on a stale one.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from servelint import profiles
from servelint.engines.vllm.verdict import static_verdict

RELEASES = list(profiles.available("vllm"))


def _profile(version: str) -> dict:
    found = profiles.load("vllm", version)
    assert found is not None
    return found.data


@pytest.mark.parametrize("version", RELEASES)
def test_engine_config_classes_that_options_fill_are_recorded(version: str) -> None:
    data = _profile(version)
    configs = data["configs"]
    assert "VllmConfig" in configs, "the engine config class is not recorded"
    engine_classes = {f["config"] for f in configs["VllmConfig"]["fields"].values() if f["config"]}
    filled = {a["field_of"] for a in data["parser"]["actions"] if a.get("field_of")}
    assert filled & engine_classes <= set(configs), sorted(filled & engine_classes - set(configs))


@pytest.mark.parametrize("version", RELEASES)
def test_config_fields_carry_value_checks(version: str) -> None:
    fields = [f for c in _profile(version)["configs"].values() for f in c["fields"].values()]
    assert any(f.get("value_check") for f in fields), "no per-field value check recorded"


def test_gpu_memory_utilization_is_bounded_where_the_release_declares_it() -> None:
    # 0.11.0: "gpu_memory_utilization: float = 0.9" (vllm/config/cache.py:43);
    # 0.11.1 on: "Field(default=0.9, gt=0, le=1)" (cache.py:50 in 0.11.1, :215 in 0.33.0).
    def bounds(v: str) -> dict | None:
        cache = _profile(v)["configs"]["CacheConfig"]["fields"]
        return cache["gpu_memory_utilization"].get("bounds")

    bounded = [v for v in RELEASES if bounds(v) == {"gt": 0, "le": 1}]
    assert bounded == [v for v in RELEASES if Version(v) >= Version("0.11.1")]
    assert all(bounds(v) is None for v in RELEASES if v not in bounded)



@pytest.mark.parametrize("version", [v for v in RELEASES if Version(v) >= Version("0.11.0")])
def test_speculative_method_without_its_draft_model_is_refused(version: str) -> None:
    # builder/conditions.literal_alias_args: `self.method in get_args(MTPModelTypes)` is a test
    # over the Literal's values, so the rename to mtp (0.33.0 vllm/config/speculative.py:1246)
    # is decided for "eagle" and the check after it (:1293) is kept; a profile built before it
    # accepted this launch from 0.21 on (0.10's guard reads the model, so it stays undecided)
    profile = profiles.load("vllm", version)
    assert profile is not None
    argv = ["m", "--speculative-config", '{"method": "eagle", "num_speculative_tokens": 1}']
    verdict = static_verdict(profile, argv)
    assert "num_speculative_tokens was provided but without speculative model" in verdict.message
