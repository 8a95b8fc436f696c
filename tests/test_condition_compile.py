"""The condition evaluator (engines/vllm/condition_compile.py): a test split into its ``and``
operands evaluates as the whole text, a text that does not parse is None, and ``reads``
names the fields in ``ast.walk``'s order, on every condition text of four releases."""

from __future__ import annotations

import ast
import math
import random
from pathlib import Path
from typing import Any

import pytest

from servelint import profiles
from servelint.engines.vllm import conditions
from servelint.engines.vllm.condition_compile import Closures, compiled, conjunction

CASES = Path(__file__).parent / "conformance" / "adversarial"


def _result(run: Any, values: conditions.Values) -> tuple[str, Any]:
    try:
        found = run(values)
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return "raises", type(exc)
    if isinstance(found, conditions.Items):
        return "items", found.n
    if isinstance(found, float) and math.isnan(found):
        return "nan", None
    if isinstance(found, tuple | list):  # NaN inside compares unequal to itself: by text
        return "sequence", repr(found)
    return "value", found if not isinstance(found, conditions.Values) else id(found)


def _texts(profile: profiles.Profile) -> set[str]:
    """Every text the check side evaluates: tests, the engine's tests (``when``), message
    placeholders and the computed arguments of the classes EngineArgs builds."""
    out: set[str] = set()
    serve = profile.data.get("serve_checks") or {}  # `vllm serve`'s namespace checks
    out |= {check["test"] for check in serve.get("checks", [])}
    for entry in profile.data["conditions"].values():
        for check in entry.get("checks", []) + entry.get("model_checks", []):
            out |= {check["test"], check.get("when", check["test"])}
            out |= set(conditions._PLACEHOLDER.findall(check["message"]))
        stack = [entry.get("built") or {}]
        while stack:
            for value in stack.pop().get("fields", {}).values():
                if isinstance(value, dict):
                    out |= {value["expr"]} if "expr" in value else set()
                    stack.append(value)
    return out


_PLAIN = [0, 1, -1, 2, 8, 0.5, float("nan"), True, False, None, "", "auto", "a,b", "1.2"]
_OTHER = [conditions.UNKNOWN, conditions.Items(0), conditions.Items(2), [1, 2], ("x",), {"k": 1}]


def _random_values(rnd: random.Random, names: list[str], depth: int = 0) -> conditions.Values:
    fields: dict[str, Any] = {}
    for name in names:
        pick = rnd.random()
        if pick < 0.15 and depth < 2:
            fields[name] = _random_values(rnd, names, depth + 1)
        elif pick < 0.35:
            fields[name] = rnd.choice(_OTHER)
        elif pick < 0.95:
            fields[name] = rnd.choice(_PLAIN)
    return conditions.Values("C", fields)


def test_a_text_that_does_not_parse_compiles_to_none():
    assert compiled("self.a ==") is None
    assert compiled("self.a") is not None


@pytest.mark.parametrize("version", ["0.11.0", "0.21.0", "0.27.1", "0.33.0"])
def test_reads_are_the_self_fields_in_ast_walk_order(version):
    """``conditions.reads`` walks a test by hand in ``ast.walk``'s order: the fields a failure
    names come in that order, so the two must agree on every text of the release."""
    texts = _texts(profiles.load("vllm", version))
    for text in texts:
        node = conditions._parsed(text)
        expected: list[str] = []
        for sub in ast.walk(node) if node is not None else ():
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.value, ast.Name)
                and sub.value.id == "self"
                and sub.attr not in expected
            ):
                expected.append(sub.attr)
        assert conditions.reads(text) == expected, text
    assert sum(len(conditions.reads(t)) > 1 for t in texts) > 40  # order matters there


@pytest.mark.parametrize("version", ["0.11.0", "0.21.0", "0.27.1", "0.33.0"])
def test_split_tests_evaluate_as_the_whole_text(version):
    """A test the builder split into its ``and`` operands (``and_parts``) evaluates, operand
    by operand, as the whole text compiled at once: same value or same exception."""
    rnd = random.Random(f"split-{version}")
    data = profiles.load("vllm", version).data
    checks = [
        c
        for e in [*data["conditions"].values(), data.get("serve_checks") or {}]
        for c in e.get("checks", []) + e.get("model_checks", [])
        if c.get("and_parts")
    ]
    for check in checks:
        text = check["test"]
        split, whole = conjunction(text, check["and_parts"], Closures()), compiled(text)
        names = sorted(
            {n.attr for n in ast.walk(conditions._parsed(text)) if isinstance(n, ast.Attribute)}
        )
        for _ in range(40):
            values = _random_values(rnd, names)
            assert _result(split, values) == _result(whole, values), (text, values.fields)
    assert len(checks) > 20


def test_an_operand_that_does_not_parse_alone_falls_back_to_the_whole_text():
    text = "self.a == 1 and self.b == 2"
    broken = conjunction(text, [[0, 9], [16, 27]], Closures())  # "self.a =" does not parse alone
    assert _result(broken, conditions.Values("C", {"a": 1, "b": 2})) == ("value", True)
    assert _result(broken, conditions.Values("C", {"a": 2, "b": 2})) == ("value", False)
