"""A launch value as pydantic (lax mode) stores it in a config field of a plain scalar type,
for the condition checks (validators.py and the checks beside it)."""

from __future__ import annotations

import re
from typing import Any

from servelint.engines.vllm.conditions import UNKNOWN, Items

_TRUE = {"true", "1", "yes", "on", "t", "y"}
_FALSE = {"false", "0", "no", "off", "f", "n"}
_INT_RE = re.compile(r"^\s*[+-]?\d(_?\d)*\s*$")


def coerce(spec: dict[str, Any], value: Any) -> Any:
    """``value`` as pydantic (lax mode) stores it in a field of ``spec["type"]``, or UNKNOWN
    when the type is not a plain scalar (its validation is another rule's business)."""
    if value is UNKNOWN:
        return UNKNOWN
    if (spec.get("type") or "").startswith("SkipValidation["):  # stored as given, unvalidated
        return value if isinstance(value, int | float | str | bool | type(None)) else UNKNOWN
    parts = {p.strip() for p in (spec.get("type") or "").split("|")}
    literal = (spec.get("value_check") or {}).get("check") == "literal"
    if value is None:
        return None if "None" in parts or "Optional" in (spec.get("type") or "") else UNKNOWN
    parts.discard("None")
    if len(parts) != 1:
        return UNKNOWN
    kind = parts.pop()
    if (
        kind.startswith("list[")
        and isinstance(value, list)
        or kind.startswith("dict[")
        and isinstance(value, dict)
    ):
        return Items(len(value))  # pydantic checks the items (another rule's business)
    if literal:
        allowed = (spec.get("value_check") or {}).get("values") or []
        return value if isinstance(value, str) and value in allowed else UNKNOWN
    if kind == "bool":
        return _as_bool(value)
    if kind == "int":
        return _as_int(value)
    if kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        return UNKNOWN
    if kind == "str":
        return value if isinstance(value, str) else UNKNOWN
    return UNKNOWN


def _as_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        return True if low in _TRUE else False if low in _FALSE else UNKNOWN
    return UNKNOWN


def _as_int(value: Any) -> Any:
    if isinstance(value, bool):
        return UNKNOWN
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_RE.match(value) and "_" not in value:
        return int(value)
    return UNKNOWN
