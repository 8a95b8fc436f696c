"""What pydantic (v2, lax mode) accepts for a vLLM config field, as the profile records its
type or value check: bools and dicts by annotation, numbers as text, Literal and Enum
values, and the string normalisations a validator applies before comparing."""

from __future__ import annotations

import re
from typing import Any

# What pydantic (v2, lax mode) accepts for a ``bool`` field besides True/False and 0/1:
# these strings, compared lower-cased (pydantic documentation, "Booleans").
PYDANTIC_BOOL_STRINGS = frozenset(
    {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}
)
BOOL_TYPES = frozenset({"bool", "bool | None", "Optional[bool]"})


def _dict_problem(annotation: str | None, item: Any) -> str | None:
    """A scalar or list given to a field whose every type is a dict (or None): pydantic wants
    an object there and does not read a JSON string as one."""
    parts = [p.strip() for p in (annotation or "").split("|")]
    if not parts or not all(p == "dict" or p.startswith("dict[") or p == "None" for p in parts):
        return None
    if item is None or isinstance(item, dict):
        return None
    return f"{item!r} is not an object (the field is {annotation})"


def _bool_problem(annotation: str | None, item: Any) -> str | None:
    """A value a pydantic ``bool`` field refuses: a string it cannot interpret, or a list or
    object. Numbers are left alone (pydantic's handling of them varies between versions)."""
    if annotation not in BOOL_TYPES:
        return None
    if isinstance(item, str) and item.strip().lower() not in PYDANTIC_BOOL_STRINGS:
        return f"{item!r} is not a valid boolean"
    if isinstance(item, (list, dict)):
        return f"{item!r} is not a valid boolean"
    return None


def _value_problem(check: dict[str, Any] | None, item: Any) -> str | None:
    if not check:
        return None
    kind = check.get("check")
    if item is None:
        return None if check.get("none", True) else "None is not allowed"
    if kind == "literal":
        return literal_problem(check, item)
    if kind == "number":
        if isinstance(item, bool):
            return None
        if isinstance(item, float) and check.get("type") == "int" and not item.is_integer():
            return f"{item!r} is not a valid integer (it has a fractional part)"
        if isinstance(item, (int, float)):
            return None
        if isinstance(item, (list, dict)):
            return f"{item!r} is not a number"
        if isinstance(item, str):
            return _number_text_problem(item, check.get("type") == "int")
        return None
    if kind == "type":
        if not any(_shape_accepts(t, item) for t in check.get("types") or []):
            return f"{item!r} is not a valid {' or '.join(check['types'])}"
        return _element_problem(check, item)
    if kind == "enum_name_ci":
        if not isinstance(item, str):
            return None
        if item.lower() in {s.lower() for s in check.get("specials", [])}:
            return None
        if item.upper() in set(check.get("values") or []):
            return None
        return f"unknown name {item!r} (one of {check.get('values')})"
    if kind == "enum_value":
        return enum_value_problem(check.get("values") or [], item)
    return None


# A superset of the texts pydantic (v2, lax mode) reads as an int: blanks around, a sign,
# digits with underscores after the first (pydantic-core skips leading zeros and what
# follows them: it takes "0-1" as -1, "0__1" as 1), and a fraction of zeros ("1.0"); it
# refuses "1k", "1e3", "1.5", "0x10", "_1". What this matches is never reported (checked
# against pydantic 2.14 on every text of up to 7 of the characters "01_.+- 5\tk").
_INT_TEXT = re.compile(r"\s*[+-]?(?:0[0_]*[+-]?[\d_]*|\d[\d_]*)(?:\.[0_]*)?\s*")


def _number_text_problem(item: str, integer: bool) -> str | None:
    """A text pydantic refuses for an int (``integer``) or a float field."""
    if integer:
        if _INT_TEXT.fullmatch(item) and any(c.isdigit() for c in item):
            return None
        return f"{item!r} is not a valid integer"
    try:
        float(item.replace("_", ""))  # pydantic takes underscores anywhere ("1_.", "._1")
    except ValueError:
        return f"{item!r} is not a number"
    return None


def _element_problem(check: dict[str, Any], item: Any) -> str | None:
    """An element a ``list[X]`` member (``check["items"]``) or a value a ``dict[K, V]``
    member (``check["values"]``) refuses: the one member of the field's types that takes a
    list (or an object) at all, e.g. ``Union[str, dict[str, str]]`` for ``{"a": 1}``."""
    if isinstance(item, list) and check.get("items") and "list" in check.get("types", ()):
        found = ((i, _value_problem(check["items"], v)) for i, v in enumerate(item))
        return next((f"element {i}: {m}" for i, m in found if m), None)
    if isinstance(item, dict) and check.get("values") and "dict" in check.get("types", ()):
        found = ((k, _value_problem(check["values"], v)) for k, v in item.items())
        return next((f"key {k!r}: {m}" for k, m in found if m), None)
    return None


def literal_problem(check: dict[str, Any], item: Any) -> str | None:
    """A value a ``Literal`` field refuses. pydantic matches a Literal strictly: a string
    equals a string member, a number a number member ("2" is not 2, 1 is not "1"); a field's
    normalising before-validator (``check["normalise"]``) runs on a string first."""
    values = check.get("values") or []
    if isinstance(item, str) and check.get("normalise"):
        item = normalise(item, check["normalise"])
    plain = all(isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
                for v in values)
    if not plain:  # other members (enum members kept as text): only plainly different values
        if any(item == v or str(item) == str(v) for v in values):
            return None
        return f"{item!r} is not one of {values}"
    if isinstance(item, str):
        ok = item in values
    elif isinstance(item, bool):
        ok = any(isinstance(v, int) for v in values)  # True may match 1: not judged
    elif isinstance(item, int | float):
        ok = any(isinstance(v, int) and item == v for v in values)
    else:
        ok = False
    return None if ok else f"{item!r} is not one of {values}"


def enum_value_problem(values: list[Any], item: Any) -> str | None:
    """A value an Enum field refuses: pydantic (lax mode) takes a member's value, and for an
    int-valued Enum also a string that reads as that number ("2", " 2", "2.0")."""
    if item in values:
        return None
    if isinstance(item, str) and values and all(
            isinstance(v, int) and not isinstance(v, bool) for v in values):
        try:
            number = float(item.strip())
        except ValueError:
            return f"{item!r} is not one of {values}"
        if not number.is_integer():
            return None  # not judged (pydantic's handling of fractions varies)
        return None if int(number) in values else f"{item!r} is not one of {values}"
    return f"{item!r} is not one of {values}"


def normalise(text: str, steps: list[list[str]]) -> str:
    """Apply a before-validator's chain of str methods (``[["lower"], ["replace", "-",
    "_"]]``, read by the builder's ``normalisers``)."""
    for name, *args in steps:
        text = getattr(text, name)(*args) if name in _STR_STEPS else text
    return text


_STR_STEPS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold", "replace"})


def _shape_accepts(shape: str, item: Any) -> bool:
    """Whether pydantic (v2, lax mode) may accept ``item`` (a JSON value) for a field of that
    builtin type; only the plain refusals count (a string for a list, a number for a str,
    a non-numeric string for an int); anything pydantic might still coerce is accepted."""
    if shape == "str":
        return isinstance(item, str)
    if shape == "list":
        return isinstance(item, list)
    if shape == "dict":
        return isinstance(item, dict)
    if isinstance(item, (list, dict)):
        return False
    if shape == "bool":
        return not isinstance(item, str) or item.strip().lower() in PYDANTIC_BOOL_STRINGS
    if isinstance(item, str):
        return _number_text_problem(item, shape == "int") is None
    if shape == "int" and isinstance(item, float):
        return item.is_integer()
    return True
