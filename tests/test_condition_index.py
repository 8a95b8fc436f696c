"""The facts the builder stores beside each condition check (builder/condition_index.py) are
what the check-time evaluator computes, on every committed vLLM profile, and the checks use
them instead of computing their own."""

from __future__ import annotations

import copy
import gzip
import json

import pytest

from servelint import profiles
from servelint.builders.vllm import condition_index
from servelint.engines.vllm import check_values
from servelint.engines.vllm.conditions import Values, check_reads, reads

RELEASES = profiles.available("vllm")


def _raw(version: str) -> dict:
    path = profiles.folder("vllm") / f"{version}.json.gz"
    return json.loads(gzip.decompress(path.read_bytes()))


def _stripped(data: dict) -> dict:
    data = copy.deepcopy(data)
    for entry in (data.get("conditions") or {}).values():
        for key in condition_index.CHECK_KEYS:
            for check in entry.get(key, []):
                check.pop("reads", None)
                check.pop("on_defaults", None)
                check.pop("and_parts", None)
    for check in (data.get("serve_checks") or {}).get("checks") or []:
        check.pop("reads", None)
        check.pop("and_parts", None)
    for entry in (data.get("conditions") or {}).values():
        _strip_computed(entry.get("built") or {})
    return data


def _strip_computed(built: dict) -> None:
    for passed in (built.get("fields") or {}).values():
        if isinstance(passed, dict):
            passed.pop("reads", None)
            passed.pop("on_defaults", None)
            _strip_computed(passed)


@pytest.mark.parametrize("version", RELEASES)
def test_stored_facts_are_the_evaluators(version: str) -> None:
    committed = _raw(version)
    fresh = _stripped(committed)
    fresh.update(condition_index.extract(None, fresh))
    assert fresh == committed


def test_every_check_of_a_recent_release_carries_its_facts() -> None:
    data = _raw(RELEASES[-1])
    table = data["conditions"]
    checks = [c for e in table.values() for k in condition_index.CHECK_KEYS for c in e.get(k, [])]
    assert checks and all(c["reads"] == reads(c["test"]) for c in checks)
    classes = [cls for cls, e in table.items() if cls != "EngineArgs" and e.get("checks")]
    assert classes and all(
        "json" in c["on_defaults"] for cls in classes for c in table[cls]["checks"]
    )
    assert all("reads" in c for c in data["serve_checks"]["checks"])


def test_a_check_without_stored_reads_computes_them() -> None:
    assert check_reads({"test": "self.a > self.b.c"}) == ["a", "b"]
    assert check_reads({"test": "self.a > 1", "reads": ["z"]}) == ["z"]


def test_the_stored_outcome_on_defaults_is_the_one_used() -> None:
    check = {"test": "self.x > 1", "reads": ["x"], "on_defaults": {"json": "raises"}}
    defaults = Values("C", {"x": 0})
    same = Values("C", {"x": 0})
    # the evaluator would say "passes" on x=0: the stored outcome wins
    assert check_values._base_outcome(check, same, (defaults, {}), "json") == "raises"
    # a kind the builder did not store is computed
    assert check_values._base_outcome(check, same, (defaults, {}), "built") == "passes"
    # values that differ from the defaults on a field read: no outcome on the defaults
    assert check_values._base_outcome(check, Values("C", {"x": 2}), (defaults, {}), "json") is False
