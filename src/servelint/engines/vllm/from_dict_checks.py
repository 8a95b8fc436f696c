"""The checks of a config class ``EngineArgs`` builds from a plain JSON option's dict
(``SpeculativeConfig(**self.speculative_config)``; the profile's ``conditions[cls].from_dict``,
builder/dict_built.py), evaluated over the launch's keys as the engine renames them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from servelint.engines.vllm import failures_memo
from servelint.engines.vllm.check_values import (
    ConditionFailure,
    _base,
    _dest_default,
    _failing,
    _field_specs,
    _json_values,
    assigned_dests,
    coerce,
    per_release,
)
from servelint.engines.vllm.conditions import UNKNOWN, closures_of
from servelint.engines.vllm.launch_values import LaunchValues
from servelint.profiles import Profile


def from_dict_failures(
    profile: Profile, table: dict[str, Any], launch: LaunchValues
) -> Iterator[ConditionFailure]:
    """Classes ``EngineArgs`` builds from a plain JSON option's dict (``from_dict``:
    ``SpeculativeConfig(**self.speculative_config)``): the launch's keys, renamed as the
    engine renames them; the keys the engine sets itself are unknown."""
    built = _built(profile, table)
    if not built:
        return
    given, payloads = launch.given, launch.plain
    assigned = assigned_dests(profile, table)
    if "*" in assigned:
        return

    for dest, (cls, how) in built:
        dests = frozenset({dest, *filter(None, how["keys"].values())})
        yield from failures_memo.part_failures(
            table, ("from_dict", cls), dests, (given, payloads),
            lambda d=dest, c=cls, h=how: _class_failures(
                profile, table, d, c, h, given, payloads.get(d), assigned
            ),
        )


def _built(profile: Profile, table: dict[str, Any]) -> list[tuple[str, tuple[str, dict[str, Any]]]]:
    """(dest, (class, how)) of each class built from a dict, by dest (the table's memo)."""
    return per_release(
        profile,
        ("from_dict", "built"),
        lambda: sorted(
            {
                e["from_dict"]["dest"]: (cls, e["from_dict"])
                for cls, e in table.items()
                if e.get("from_dict") and e.get("checks")
            }.items()
        ),
    )


def _class_failures(
    profile: Profile,
    table: dict[str, Any],
    dest: str,
    cls: str,
    how: dict[str, Any],
    given: dict[str, Any],
    payload: Any,
    assigned: frozenset[str],
) -> Iterator[ConditionFailure]:
    """One class's checks over the dict ``dest`` gives it (``payload``), keyed as the engine
    renames them, with the keys the engine fills from other dests (``--spec-tokens``)."""
    filled = {
        key: given.get(by, _dest_default(profile, table, by)) if by else UNKNOWN
        for key, by in how["keys"].items()
    }
    filled = {k: v for k, v in filled.items() if v is not None}
    if payload is None and how.get("created") and any(how["keys"][k] for k in filled):
        payload = {}  # the engine starts the dict from those options
    if not isinstance(payload, dict):
        return
    payload = _rekeyed(payload, how["rekey"])
    values = _json_values(profile, table, cls, payload, 0, own=True)
    specs = _field_specs(profile, cls)
    for key, value in filled.items():
        by = how["keys"][key]
        known = by and by not in assigned and key not in payload and key in specs
        values.fields[key] = coerce(specs[key], value) if known else UNKNOWN
    only_if = ""
    if how["replaced_by"]:
        only_if = (
            f"unless the model's config makes {', '.join(how['replaced_by'])} "
            f"replace --{dest.replace('_', '-')}"
        )
    base = _base(profile, ("from_dict", cls), _json_values, profile, table, cls, {}, 0, own=True)
    closures = closures_of(profile)
    for failure in _failing(table, cls, values, "engine_config", f"{dest}.", base=base, closures=closures):
        yield replace(failure, only_if="; ".join(c for c in (failure.only_if, only_if) if c))


def _rekeyed(payload: dict[str, Any], pairs: list[list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in payload.items():
        for old, new in pairs:
            key = key.replace(old, new)
        out[key] = value
    return out
