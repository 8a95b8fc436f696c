"""Check a value the way an SGLang ``type=`` function or action class would, from the
declarative model the builder read out of its code (``builder/type_models.py``).

``type_error(model, text)`` gives the reason the function rejects ``text`` (argparse then
exits 2 with ``argument --x: <reason>``), ``None`` when it accepts it or the model is not
one this module knows. ``action_error`` is the same for action classes, which raise plain
exceptions (exit 1).
"""

from __future__ import annotations

import json
import logging
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

_INT64 = (-(2**63), 2**64 - 1)  # orjson: integers outside this range are read as doubles
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _orjson_constant(name: str) -> Any:
    raise ValueError(f"orjson rejects {name}")


def _orjson_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError("number is infinity when parsed as double")
    return value


def _orjson_int(text: str) -> int | float:
    value = int(text)
    return value if _INT64[0] <= value <= _INT64[1] else _orjson_float(text)


def _strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings_in(k) + _strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings_in(v)]
    return []


def json_loads(text: str, loader: str) -> Any:
    """``json.loads`` / ``orjson.loads`` of ``text``; ValueError when it fails."""
    if loader != "orjson":
        return json.loads(text)
    value = json.loads(
        text, parse_constant=_orjson_constant, parse_int=_orjson_int, parse_float=_orjson_float
    )
    if any(_SURROGATE.search(s) for s in _strings_in(value)):
        raise ValueError("str is not valid UTF-8: surrogates not allowed")
    return value


def _human_int(model: dict, text: str) -> str | None:
    value = text.strip() if model.get("strip") else text
    m = re.fullmatch(model["pattern"], value)
    if m and m.lastindex and m.lastindex >= 2:
        number, suffix = m.group(1), m.group(2)
        if suffix in model.get("no_decimal_suffixes", []) and "." in number:
            return f"Decimals are not allowed with IEC suffixes like '{suffix}'."
        try:
            Decimal(number)
        except InvalidOperation:
            return f"Invalid integer value: '{value}'."
        return None
    try:
        int(value)
    except ValueError:
        template = model.get("invalid_message")
        try:
            return (
                template.format(value=value) if template else f"Invalid integer value: '{value}'."
            )
        except (KeyError, IndexError, ValueError):
            return f"Invalid integer value: '{value}'."
    return None


def _json_phases(model: dict, text: str) -> str | None:
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        return f"must be JSON: {exc}"
    if not isinstance(parsed, dict):
        return f"must be a JSON object, got {type(parsed).__name__}"
    for phase, settings in parsed.items():
        if phase not in model["phases"]:
            return f"unknown phase '{phase}', expected one of {tuple(model['phases'])}"
        if not isinstance(settings, dict):
            return f"['{phase}'] must be a JSON object, got {type(settings).__name__}"
        for key, sub in model.get("checked", {}).items():
            if key in settings and isinstance(settings[key], str):
                reason = type_error(sub, settings[key])
                if reason:
                    return reason
        allowed = model["keys"].get(phase, [])
        for key in settings:
            if key not in allowed:
                return f"['{phase}']: unknown key '{key}', expected one of {tuple(allowed)}"
    return None


def type_error(model: dict | None, text: str) -> str | None:
    """Why the modelled type function rejects ``text`` (None: accepted or not modelled)."""
    if not model:
        return None
    kind = model.get("kind")
    if kind == "human_int":
        return _human_int(model, text)
    if kind == "json":
        try:
            json_loads(text, model.get("loader", "json"))
        except (ValueError, RecursionError) as exc:
            return f"invalid JSON ({model.get('function', 'loads')}): {exc}"
        return None
    if kind == "json_phases":
        return _json_phases(model, text)
    if kind == "rejects":
        if text in model.get("values", []):
            return f"{text} is rejected by {model.get('function', 'the type function')}"
    return None


def returns_input(model: dict | None) -> bool:
    """The type function hands argparse the text itself: ``choices`` compare that text."""
    return bool(model and model.get("returns_input"))


def action_error(model: dict | None, values: list[str]) -> str | None:
    """Why a modelled action class raises on ``values`` (None: it does not, or unknown)."""
    if not model or model.get("kind") != "braced_json":
        return None
    for raw in values:
        text = raw.strip() if model.get("strip") else raw
        if not (text.startswith("{") and text.endswith("}")):
            continue
        try:
            obj = json.loads(text)
        except ValueError as exc:
            return f"JSONDecodeError: {exc}"
        keys = model.get("required_keys", [])
        if not isinstance(obj, dict) or any(k not in obj for k in keys):
            return (
                f"AssertionError: {text!r} looks like a JSON str, but it does not contain "
                + " and ".join(f"'{k}'" for k in keys)
                + " keys."
            )
    return None


def logging_level_error(text: str) -> str | None:
    """``logging.basicConfig(level=getattr(logging, text.upper()))``: why it raises."""
    name = text.upper()
    level = getattr(logging, name, None) if name.isidentifier() else None
    if level is None:
        return f"AttributeError: module 'logging' has no attribute '{name}'"
    if isinstance(level, bool) or not isinstance(level, int | str):
        return f"TypeError: Level not an integer or a valid string: {level!r}"
    if isinstance(level, str) and level not in logging.getLevelNamesMapping():
        return f"ValueError: Unknown level: {level!r}"
    return None
