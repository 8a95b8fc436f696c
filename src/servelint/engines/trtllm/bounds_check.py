"""Judging a value against the validator bounds a profile records (``build_bounds``)."""

from __future__ import annotations

import re
from typing import Any

_FLOAT_TEXT = re.compile(r"^-?\d+(\.\d+)?$")
_INT_TEXT = re.compile(r"^-?\d+$")


def lax_number(ty: Any, text: str) -> float | int | None:
    """The number pydantic's lax mode makes of ``text`` for a field typed ``float``/``int``
    (or Optional of one), for plain decimal text only; None otherwise."""
    union = ty.get("union") if isinstance(ty, dict) else None
    if isinstance(union, list) and len(union) == 2 and "none" in union:
        ty = next(u for u in union if u != "none")
    if ty == "float" and _FLOAT_TEXT.match(text):
        return float(text)
    if ty == "int" and _INT_TEXT.match(text):
        return int(text)
    return None


_CMP = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


NONE = float("nan")  # a YAML null given to a validator that compares it (TypeError)


def refuses(refusal: dict[str, Any], value: float) -> bool:
    """Whether the validator's ``if COND: raise`` fires for ``value``."""
    if value is NONE or "none" in refusal:
        return value is NONE and "none" in refusal
    if "outside" in refusal:
        (low, high), (op1, op2) = refusal["outside"], refusal["ops"]
        return not (_CMP[op1](low, value) and _CMP[op2](value, high))
    return _CMP[refusal["op"]](value, refusal["value"])


def describe(refusal: dict[str, Any]) -> str:
    if "none" in refusal:
        return "it compares the value with a number: None raises TypeError"
    if "outside" in refusal:
        (low, high), (op1, op2) = refusal["outside"], refusal["ops"]
        return f"it must be {low} {op1} value {op2} {high}"
    return f"it raises when value {refusal['op']} {refusal['value']}"
