"""Checks over plain option dests (``EngineArgs``'s own fields, the ``vllm serve`` namespace),
evaluated over what the launch gives them: the one loop engine_args_checks.py and
serve_checks.py share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from servelint.engines.vllm.check_values import ConditionFailure
from servelint.engines.vllm.conditions import (
    Closures,
    Values,
    check_outcome,
    check_reads,
    rendered,
)


def raising(
    checks: Iterable[dict[str, Any]],
    given: dict[str, Any],
    value: Callable[[str], Any],
    where: tuple[str, str, str],
    closures: Closures,
) -> Iterator[Any]:
    """The ``ConditionFailure`` of each check the launch's values make raise (or whose test
    divides by zero, which the engine fails on the same way); a check that
    reads no dest the launch gives is skipped (the release's defaults pass it). ``value``:
    a dest's value (``given``'s, a default, or UNKNOWN); ``where``: (the values' class name,
    the failure's class, its stage); ``closures``: the release's compiled texts."""
    values_cls, failure_cls, stage = where
    for check in checks:
        fields = check_reads(check)
        if not any(f in given for f in fields):
            continue  # the release's defaults: nothing the launch decides
        values = Values(values_cls, {f: value(f) for f in fields}, {f: f for f in fields if f in given})
        found = check_outcome(check, values, closures)
        if found not in ("raises", "divides-by-zero"):
            continue
        message = rendered(check["message"], values, closures)
        if found == "divides-by-zero":  # the engine fails evaluating the test, as validators do
            message = f"ZeroDivisionError while checking `{check['test']}` (before: {message})"
        yield ConditionFailure(
            failure_cls,
            message,
            check["source"],
            stage,
            check["test"],
            tuple(f for f in fields if f in given),
            check.get("model", ""),
        )
