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
from servelint.engines.vllm.check_values import (
    ENGINE_ARGS_KEYS,
    ConditionFailure,
    _dest_default,
    assigned_dests,
    read_fields,
)
from servelint.engines.vllm.conditions import UNKNOWN, closures_of
from servelint.engines.vllm.dest_checks import raising
from servelint.profiles import Profile


def engine_args_failures(
    profile: Profile, table: dict[str, Any], given: dict[str, Any]
) -> tuple[ConditionFailure, ...]:
    """The failing checks, memoised on the values ``given`` has for the fields they read."""
    return failures_memo.part_failures(
        table, ("engine_args",), read_fields(profile, table), (given,), lambda: _failures(profile, table, given)
    )


def _failures(
    profile: Profile, table: dict[str, Any], given: dict[str, Any]
) -> Iterator[ConditionFailure]:
    entry = table.get("EngineArgs") or {}
    checks = [c for key in ENGINE_ARGS_KEYS for c in entry.get(key, [])]
    assigned = assigned_dests(profile, table)
    if not checks or "*" in assigned:
        return
    # the walk's own changes are in each check's test (as for a config class's own checks)
    blocked = assigned - set(entry.get("changes", []))
    yield from raising(
        checks,
        given,
        lambda dest: _value(profile, table, given, blocked, dest),
        ("EngineArgs", "EngineArgs", "engine_config"),
        closures_of(profile),
    )


def _value(
    profile: Profile, table: dict[str, Any], given: dict[str, Any], blocked: frozenset[str], dest: str
) -> Any:
    if dest in blocked:
        return UNKNOWN
    if dest in given:
        return given[dest]
    return _dest_default(profile, table, dest)
