"""Numeric bounds of the config fields ``create_engine_config`` fills from an option that
does not name its field (``--data-parallel-rpc-port``: ``ParallelConfig(
data_parallel_rpc_port=<a local over the dest>)``, the field ``Field(ge=1, le=65535)``).

An option with ``field_of`` has its bounds judged where it is parsed (json_config.py); this
covers the others through the profile's construction record (``conditions.*.built``: one
unconditional ``Cls(...)`` call, a field passed the dest or an expression over the dests).
pydantic refuses a value outside the bounds when the class is built: the engine_config stage.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from servelint.engines.vllm import failures_memo
from servelint.engines.vllm.check_values import (
    ConditionFailure,
    _computed,
    assigned_dests,
    per_release,
)
from servelint.engines.vllm.conditions import UNKNOWN, check_reads
from servelint.engines.vllm.json_config import bound_problem
from servelint.profiles import Profile


def bound_failures(profile: Profile, table: dict[str, Any], given: dict[str, Any]) -> tuple:
    """The bounds the launch's values break, memoised on the values of the dests they read."""
    return failures_memo.part_failures(
        table, ("bounds",), _read(profile, table), (given,), lambda: _failures(profile, table, given)
    )


def _read(profile: Profile, table: dict[str, Any]) -> frozenset[str]:
    """Every dest a bounded field is passed (once per release: the conditions table's memo)."""
    def dests() -> frozenset[str]:
        found: set[str] = set()
        for _, _, passed, _, _ in _bounded_fields(profile, table):
            if isinstance(passed, str):
                found.add(passed)
            elif isinstance(passed, dict) and "expr" in passed:
                found.update(check_reads(passed, "expr"))
        return frozenset(found)

    return per_release(profile, ("bounds", "read"), dests)


def _failures(profile: Profile, table: dict[str, Any], given: dict[str, Any]) -> Iterator[Any]:
    blocked = assigned_dests(profile, table)
    if "*" in blocked:
        return  # the entrypoint may change any dest
    for cls, name, passed, bounds, source in _bounded_fields(profile, table):
        dest, value = _passed_value(profile, table, passed, given, blocked)
        act = profile.by_dest.get(dest) if dest else None
        if act is None or act.raw.get("field_of"):
            continue  # no launch value here, or judged where the option is parsed
        msg = bound_problem(bounds, value)
        if msg:
            yield ConditionFailure(
                cls,
                f"{cls}: {name}={msg}",
                source,
                "engine_config",
                f"{name} within {bounds}",
                (dest,),
            )


def _bounded_fields(
    profile: Profile, table: dict[str, Any]
) -> list[tuple[str, str, Any, Any, str]]:
    """(class, field, what the construction passes it, its bounds, its source) of every
    bounded field a construction fills, in class and field order; once per release (the
    conditions table's memo)."""

    def fields_of() -> list[tuple[str, str, Any, Any, str]]:
        found = []
        for cls, entry in sorted(table.items()):
            built = entry.get("built") or {}
            fields = (profile.configs.get(cls) or {}).get("fields", {})
            converted = set(entry.get("converted", []))
            for name, passed in sorted((built.get("fields") or {}).items()):
                bounds = (fields.get(name) or {}).get("bounds")
                if not bounds or name in converted or "*" in converted:
                    continue
                source = (fields.get(name) or {}).get("source") or built.get("source", "")
                found.append((cls, name, passed, bounds, source))
        return found

    return per_release(profile, ("bounds", "fields"), fields_of)


def _passed_value(
    profile: Profile,
    table: dict[str, Any],
    passed: Any,
    given: dict[str, Any],
    blocked: frozenset[str],
) -> tuple[str, Any]:
    """(the launch dest the field reads, its value) or ("", UNKNOWN)."""
    if isinstance(passed, str):
        if passed in blocked or passed not in given:
            return "", UNKNOWN
        return passed, given[passed]
    if isinstance(passed, dict) and "expr" in passed:
        dests = [d for d in check_reads(passed, "expr") if d in given]
        if len(dests) != 1 or dests[0] in blocked:
            return "", UNKNOWN
        return dests[0], _computed(profile, table, passed, given)
    return "", UNKNOWN
