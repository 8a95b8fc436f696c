"""What a check run would otherwise derive from every condition of the release on each run,
stored beside each check by the last extractor (a pure function of the profile built so far).

- ``reads``: the fields the check's ``test`` reads (``conditions.reads``), on every check of
  ``conditions`` and ``serve_checks``, and the dests each argument a construction computes
  (``built`` ``{"expr"}``) reads, with (``on_defaults``) its value over the dests' defaults
  when that is a plain scalar;
- ``and_parts``: for a test that is an ``and`` (nested ``and``s flattened), the character
  span of each operand, kept only when every operand parses alone to the same node; the
  check then parses one operand at a time (``condition_compile.conjunction``);
- ``on_defaults``: for a config class's checks, the test's outcome on the class's defaults
  (``check_values._base_outcome``): ``json`` from an empty dict, ``built`` as
  ``create_engine_config`` builds it from the dests' defaults ("raises", "passes",
  "divides-by-zero" or null: not decided).

A launch that leaves every field a check reads at its default then never parses or compiles
the check's test. ``tests/test_condition_index.py`` checks the stored values against the
evaluator for every committed profile.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from servelint.builders.vllm.model_split import conjuncts
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm import check_values
from servelint.engines.vllm.conditions import outcome, reads
from servelint.profiles import Profile

CHECK_KEYS = ("checks", "model_checks")


def extract(src: WheelSource | None, profile: dict[str, Any]) -> dict[str, Any]:
    """The ``conditions`` and ``serve_checks`` sections with each check annotated."""
    out: dict[str, Any] = {}
    if profile.get("conditions"):
        out["conditions"] = annotated(profile)
    for check in (profile.get("serve_checks") or {}).get("checks") or []:
        _annotate(check)
    return out


def annotated(data: dict[str, Any]) -> dict[str, Any]:
    """``data["conditions"]``, each check given its ``reads`` and ``on_defaults`` (in place)."""
    table = data["conditions"]
    for check in _checks(table, "EngineArgs"):
        _annotate(check)
    prof = Profile(data)
    for entry in table.values():
        _annotate_computed(prof, table, entry.get("built") or {})
    for cls, entry in table.items():
        if cls == "EngineArgs" or not any(entry.get(k) for k in CHECK_KEYS):
            continue
        bases = _defaults_objects(prof, table, cls, entry)
        for check in _checks(table, cls):
            _annotate(check)
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


def _annotate(check: dict[str, Any]) -> None:
    check["reads"] = reads(check["test"])
    parts = and_parts(check["test"])
    if parts:
        check["and_parts"] = parts


def and_parts(text: str) -> list[list[int]] | None:
    """[start, end) character spans of the operands of ``text``'s top-level ``and`` (nested
    ``and`` operands flattened), or None: not an ``and``, or an operand that does not parse
    alone to the node it is in the whole."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    operands = conjuncts(node)
    if len(operands) < 2:
        return None
    chars = _char_offsets(text)
    spans = []
    for op in operands:
        start, end = chars(op.lineno, op.col_offset), chars(op.end_lineno, op.end_col_offset)
        try:
            alone = ast.parse(text[start:end], mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return None
        if ast.dump(alone) != ast.dump(op):
            return None
        spans.append([start, end])
    return spans


def _char_offsets(text: str):  # noqa: ANN202
    """(line, UTF-8 column) as ast gives them -> character offset into ``text``."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(lineno: int | None, col: int | None) -> int:
        line = lines[(lineno or 1) - 1] if lines else ""
        return starts[(lineno or 1) - 1] + len(line.encode()[: col or 0].decode())

    return at


def _annotate_computed(prof: Profile, table: dict[str, Any], built: dict[str, Any]) -> None:
    """``reads`` and ``on_defaults`` on each computed argument of a construction (nested ones
    included)."""
    for passed in (built.get("fields") or {}).values():
        if isinstance(passed, dict) and "expr" in passed:
            passed["reads"] = reads(passed["expr"])
            value = check_values._computed(prof, table, passed, {})
            if _plain_scalar(value):
                passed["on_defaults"] = value
        elif isinstance(passed, dict):
            _annotate_computed(prof, table, passed)


def _plain_scalar(value: Any) -> bool:
    """A value JSON gives back as it is (type included)."""
    if type(value) is float:
        return math.isfinite(value)
    return type(value) in (int, str, bool, type(None))


def _checks(table: dict[str, Any], cls: str) -> list[dict[str, Any]]:
    entry = table.get(cls) or {}
    return [c for key in CHECK_KEYS for c in entry.get(key, [])]


def _defaults_objects(
    prof: Profile, table: dict[str, Any], cls: str, entry: dict[str, Any]
) -> list[tuple[str, Any]]:
    """(kind, the defaults' object) as ``check_values`` builds them for its base outcomes."""
    found = [("json", check_values._json_values(prof, table, cls, {}, 0, own=True))]
    if entry.get("built"):
        built = check_values._built_values(prof, table, cls, entry["built"], {}, {}, force=True)
        if built is not None:
            found.append(("built", built))
    return found
