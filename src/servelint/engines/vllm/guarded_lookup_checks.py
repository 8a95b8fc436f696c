"""Late value sets looked up only under a guard over the config object's own fields (the
``guarded`` targets of a ``late_values`` entry, builder/guarded_lookups.py).

``--reasoning-config '{}'`` on vLLM 0.21.0 builds a ``ReasoningConfig`` whose
``reasoning_parser`` is ``""``; ``initialize_token_ids`` looks it up because neither
reasoning string is set, and the registry has no ``""``. The object is the one the JSON
option describes: the keys given, the source's defaults for the rest. Nothing is judged
where EngineArgs may change the object first (``changed_when`` not certainly false over the
dests), where a plugin option may register more names, or under ``--config``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from servelint.engines.vllm.check_values import _engine_args_fields, coerce
from servelint.engines.vllm.conditions import UNKNOWN, Values, closures_of, outcome, reads
from servelint.engines.vllm.launch_values import _dest_values, _json_payloads
from servelint.profiles import Profile


@dataclass(slots=True, eq=False)
class LookupFailure:
    """A value the release looks up in a table that has no such entry (identity equality)."""

    set_name: str
    target: str  # dest.field
    value: str
    message: str
    stage: str
    source: str  # the lookup's path:line


def lookup_failures(
    profile: Profile, options: list[Any], unknown: Callable[[Any], bool] = lambda opt: False
) -> Iterator[LookupFailure]:
    guarded = [
        (name, entry, target, how)
        for name, entry in profile.late_values.items()
        for target, how in (entry.get("guarded") or {}).items()
    ]
    if not guarded or any(opt.canonical == "--config" for opt in options):
        return
    dests = {opt.action.dest for opt in options if opt.action is not None}
    payloads = _json_payloads(profile, options, unknown)
    given: dict[str, Any] | None = None
    for name, entry, target, how in guarded:
        payload = payloads.get(target.split(".")[0])
        if not isinstance(payload, dict) or any(d in dests for d in entry.get("extended_by", [])):
            continue
        values = _object(profile, how, payload)
        value = values.get(how["field"])
        if not isinstance(value, str) or value in entry.get("values", []):
            continue
        if outcome(how["test"], values, closures_of(profile)) != "raises":
            continue
        given = _dest_values(options, unknown) if given is None else given
        if not _unchanged(profile, how["changed_when"], given):
            continue
        yield LookupFailure(
            name,
            target,
            value,
            f"{target}={value!r} is not one of the {len(entry.get('values', []))} values of "
            f"{name} in {profile.label}, and the engine looks it up: `{how['test']}` holds "
            f"({how['source']}); {entry.get('message', '')}",
            entry.get("stage") or "engine_config",
            how["source"],
        )


def _object(profile: Profile, how: dict[str, Any], payload: dict[str, Any]) -> Values:
    """The fields the test reads, as the JSON option's object holds them."""
    specs = (profile.configs.get(how["cls"]) or {}).get("fields", {})
    fields: dict[str, Any] = {}
    for name, default in how["defaults"].items():
        if name in payload:
            fields[name] = coerce(specs[name], payload[name]) if name in specs else UNKNOWN
        else:
            fields[name] = default.get("value", UNKNOWN) if "value" in default else UNKNOWN
    return Values(how["cls"], fields)


def _unchanged(profile: Profile, guards: list[str], given: dict[str, Any]) -> bool:
    """Every guard under which EngineArgs changes the object is certainly false."""
    table = profile.data.get("conditions") or {}
    return all(
        outcome(test, _engine_args_fields(profile, table, reads(test), given), closures_of(profile))
        == "passes"
        for test in guards
    )
