"""What pydantic (v2, lax mode, Python input) accepts for a field of a given type descriptor.

The descriptors are the builder's (``build_llm_args``): ``"int"``, ``{"literal": [...]}``,
``{"model": name}``, ... A node is a YAML value as ``option_file`` parsed it (``value``,
``items`` for mappings and sequences, ``symbolic``). Lax mode: ``int`` takes bools, integral
floats and numeric strings; ``float`` takes numbers and numeric strings; ``bool`` takes 0/1
and pydantic's true/false words; ``str`` takes strings only.
"""

from __future__ import annotations

import math
from typing import Any

_BOOL_STR = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}


def _union_error(ty: Any, node: Any) -> str | None:
    errors = [type_error(t, node) for t in ty["union"]]
    return None if any(e is None for e in errors) else next(e for e in errors if e)


def _literal_error(ty: Any, node: Any) -> str | None:
    value = node.value
    if (
        node.items is not None
        or value not in ty["literal"]
        or any(isinstance(v, bool) != isinstance(value, bool) for v in ty["literal"] if v == value)
    ):
        return f"input should be one of {', '.join(repr(v) for v in ty['literal'])}"
    return None


def _enum_error(ty: Any, node: Any) -> str | None:
    if node.items is not None or node.value not in ty["enum"]:
        return (
            f"input should be one of {', '.join(repr(v) for v in ty['enum'])} "
            f"({ty.get('name', 'enum')})"
        )
    return None


def _list_error(ty: Any, node: Any) -> str | None:
    return None if isinstance(node.items, list) else "input should be a valid list"


def _dict_error(ty: Any, node: Any) -> str | None:
    return None if isinstance(node.items, dict) else "input should be a valid dictionary"


def _model_error(ty: Any, node: Any) -> str | None:
    return None if isinstance(node.items, dict) else f"input should be a mapping ({ty['model']})"


# by descriptor key, in the order they are tried
_COMPOSITE: tuple[tuple[str, Any], ...] = (
    ("any", lambda ty, node: None),
    ("union", _union_error),
    ("literal", _literal_error),
    ("enum", _enum_error),
    ("list", _list_error),
    ("dict", _dict_error),
    ("model", _model_error),
)


def type_error(ty: Any, node: Any) -> str | None:
    """Why pydantic (lax mode) refuses ``node`` for ``ty``, or None when it accepts it."""
    if node.symbolic:
        return None
    if isinstance(ty, str):
        return _scalar_error(ty, node.value)
    for key, check in _COMPOSITE:
        if key in ty:
            return check(ty, node)
    return None


def _str_error(value: Any) -> str | None:
    if isinstance(value, str):
        return None
    return f"input should be a valid string, got {type(value).__name__} {value!r}"


def _bool_error(value: Any) -> str | None:
    if isinstance(value, bool) or (isinstance(value, int | float) and value in (0, 1)):
        return None
    if isinstance(value, str) and value.strip().lower() in _BOOL_STR:
        return None
    return f"input should be a valid boolean, got {value!r}"


def _int_error(value: Any) -> str | None:
    if isinstance(value, bool | int):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return None
    if isinstance(value, str) and _int_text(value):
        return None
    return f"input should be a valid integer, got {value!r}"


def _float_error(value: Any) -> str | None:
    if isinstance(value, bool | int | float):
        return None
    if isinstance(value, str):
        try:
            float(value.strip())
            return None
        except ValueError:
            pass
    return f"input should be a valid number, got {value!r}"


_SCALARS = {"str": _str_error, "bool": _bool_error, "int": _int_error, "float": _float_error}


def _scalar_error(ty: str, value: Any) -> str | None:
    if ty == "none":
        return None if value is None else "input should be None"
    if value is None:
        return f"input should be a valid {_NAMES.get(ty, ty)}, not null"
    if isinstance(value, dict | list):
        return f"input should be a valid {_NAMES.get(ty, ty)}"
    check = _SCALARS.get(ty)
    return check(value) if check is not None else None


_NAMES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}


def _int_text(text: str) -> bool:
    try:
        int(text.strip().replace("_", ""))
        return True
    except ValueError:
        try:
            f = float(text.strip())
            return math.isfinite(f) and f.is_integer()
        except ValueError:
            return False


def models_in(ty: Any) -> list[str]:
    """The model classes a type admits (for nested validation)."""
    if isinstance(ty, str):
        return []
    if "model" in ty:
        return [ty["model"]]
    if "union" in ty:
        return [m for t in ty["union"] for m in models_in(t)]
    return []


def items_type(ty: Any, kind: str) -> Any:
    if isinstance(ty, str):
        return None
    if kind in ty:
        return ty[kind]
    if "union" in ty:
        return next((t[kind] for t in ty["union"] if isinstance(t, dict) and kind in t), None)
    return None
