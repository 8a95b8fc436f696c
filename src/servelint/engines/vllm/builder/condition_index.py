"""What a check run would otherwise derive from every condition of the release on each run,
stored beside each check by the last extractor (a pure function of the profile built so far).

- ``reads``: the fields the check's ``test`` reads (``conditions.reads``), on every check of
  ``conditions`` and ``serve_checks``, and the dests each argument a construction computes
  (``built`` ``{"expr"}``) reads;
- ``on_defaults``: for a config class's checks, the test's outcome on the class's defaults
  (``validators._base_outcome``): ``json`` from an empty dict, ``built`` as
  ``create_engine_config`` builds it from the dests' defaults ("raises", "passes",
  "divides-by-zero" or null: not decided).

A launch that leaves every field a check reads at its default then never parses or compiles
the check's test. ``tests/test_condition_index.py`` checks the stored values against the
evaluator for every committed profile.
"""

from __future__ import annotations

from typing import Any

from servelint.engines._build.wheel import WheelSource
from servelint.engines.vllm import validators
from servelint.engines.vllm.conditions import outcome, reads
from servelint.profiles import Profile

CHECK_KEYS = ("checks", "model_checks")


def extract(src: WheelSource | None, profile: dict[str, Any]) -> dict[str, Any]:
    """The ``conditions`` and ``serve_checks`` sections with each check annotated."""
    out: dict[str, Any] = {}
    if profile.get("conditions"):
        out["conditions"] = annotated(profile)
    for check in (profile.get("serve_checks") or {}).get("checks") or []:
        check["reads"] = reads(check["test"])
    return out


def annotated(data: dict[str, Any]) -> dict[str, Any]:
    """``data["conditions"]``, each check given its ``reads`` and ``on_defaults`` (in place)."""
    table = data["conditions"]
    for check in _checks(table, "EngineArgs"):
        check["reads"] = reads(check["test"])
    prof = Profile(data)
    for entry in table.values():
        _annotate_computed(entry.get("built") or {})
    for cls, entry in table.items():
        if cls == "EngineArgs" or not any(entry.get(k) for k in CHECK_KEYS):
            continue
        bases = _defaults_objects(prof, table, cls, entry)
        for check in _checks(table, cls):
            check["reads"] = reads(check["test"])
            check["on_defaults"] = {kind: outcome(check["test"], obj) for kind, obj in bases}
    return table


def defaults_outcomes(data: dict[str, Any], cls: str) -> dict[str, dict[str, Any]]:
    """test -> {kind: outcome} for ``cls``'s checks, computed now (what ``annotated`` stores)."""
    table = data["conditions"]
    bases = _defaults_objects(Profile(data), table, cls, table[cls])
    return {
        c["test"]: {kind: outcome(c["test"], obj) for kind, obj in bases}
        for c in _checks(table, cls)
    }


def _annotate_computed(built: dict[str, Any]) -> None:
    """``reads`` on each computed argument of a construction (nested ones included)."""
    for passed in (built.get("fields") or {}).values():
        if isinstance(passed, dict) and "expr" in passed:
            passed["reads"] = reads(passed["expr"])
        elif isinstance(passed, dict):
            _annotate_computed(passed)


def _checks(table: dict[str, Any], cls: str) -> list[dict[str, Any]]:
    entry = table.get(cls) or {}
    return [c for key in CHECK_KEYS for c in entry.get(key, [])]


def _defaults_objects(
    prof: Profile, table: dict[str, Any], cls: str, entry: dict[str, Any]
) -> list[tuple[str, Any]]:
    """(kind, the defaults' object) as ``validators`` builds them for its base outcomes."""
    found = [("json", validators._json_values(prof, table, cls, {}, 0, own=True))]
    if entry.get("built"):
        built = validators._built_values(prof, table, cls, entry["built"], {}, {}, force=True)
        if built is not None:
            found.append(("built", built))
    return found
