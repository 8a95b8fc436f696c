"""The checks ``EngineArgs.create_engine_config`` makes on the option dests themselves (the
profile's ``conditions["EngineArgs"]``), evaluated over the launch's dest values.

EngineArgs is a plain dataclass filled from the parsed namespace, so a field holds what
the parser stored for its dest. The checks were walked like a config class's own
(builder/conditions.py): a dest ``__post_init__``/``create_engine_config`` (and the methods
they call) change before a check is in ``changes``, and the check was kept only as true where
no such assignment ran (builder/guarded.py), or dropped; the entrypoints' assignments
(``args.x = …``) seeded that walk as always changed, so no kept check reads them. What stays
undecided is a dest another EngineArgs method assigns (``assigned`` minus ``changes``): a
test reading it is not decided. The plain checks are rejections; the model checks
(``LAUNCH and MODEL``, builder/model_split.py) a finding for the models where MODEL holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from servelint.engines.vllm import failures_memo
from servelint.engines.vllm.conditions import UNKNOWN, check_reads
from servelint.engines.vllm.dest_checks import raising
from servelint.engines.vllm.validators import (
    ConditionFailure,
    _dest_default,
    assigned_dests,
    per_release,
)
from servelint.profiles import Profile

KEYS = ("checks", "model_checks")  # certain failures first


def engine_args_failures(
    profile: Profile, table: dict[str, Any], given: dict[str, Any]
) -> tuple[ConditionFailure, ...]:
    """The failing checks, memoised on the values ``given`` has for the fields they read."""
    return failures_memo.part_failures(
        table, ("engine_args",), read_fields(table), (given,), lambda: _failures(profile, table, given)
    )


def read_fields(table: dict[str, Any]) -> frozenset[str]:
    """Every field the checks read (once per release: the conditions table's memo)."""
    entry = table.get("EngineArgs") or {}
    return per_release(
        table,
        ("engine_args", "read"),
        lambda: frozenset(f for key in KEYS for c in entry.get(key, []) for f in check_reads(c)),
    )


def _failures(
    profile: Profile, table: dict[str, Any], given: dict[str, Any]
) -> Iterator[ConditionFailure]:
    entry = table.get("EngineArgs") or {}
    checks = [c for key in KEYS for c in entry.get(key, [])]
    assigned = assigned_dests(table)
    if not checks or "*" in assigned:
        return
    # the walk's own changes are in each check's test (as for a config class's own checks)
    blocked = assigned - set(entry.get("changes", []))
    yield from raising(
        checks,
        given,
        lambda dest: _value(profile, table, given, blocked, dest),
        ("EngineArgs", "EngineArgs", "engine_config"),
    )


def _value(
    profile: Profile, table: dict[str, Any], given: dict[str, Any], blocked: frozenset[str], dest: str
) -> Any:
    if dest in blocked:
        return UNKNOWN
    if dest in given:
        return given[dest]
    return _dest_default(profile, table, dest)
