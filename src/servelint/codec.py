"""A JSON codec for servelint's own result types, safe on data anyone may have written.

``dumps(value)`` turns findings, launch reports and file results into JSON; ``loads(text)``
builds them back and constructs nothing but the types listed in ``KNOWN`` (plain JSON values,
``Severity``, and the servelint dataclasses). It is generic over dataclass fields, so a field
added to ``Finding`` keeps working; a document naming an unknown type or field, or of the
wrong shape, raises ``CodecError`` (the cache treats that as a miss). Nothing is ever
imported, called or evaluated from the data.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any

TYPE = "$t"  # {"$t": "Finding", "f": {...fields...}}
ENUM = "$e"  # {"$e": "Severity", "v": 3}
TUPLE = "$tuple"  # {"$tuple": [...]}


class CodecError(ValueError):
    """The data is not a valid encoding of servelint values."""


@functools.cache
def known() -> dict[str, type]:
    """The only types ``loads`` constructs, by name: the dataclasses and enums of
    ``servelint.model`` (Finding, Span, Fix, Edit, Severity, …) and the pipeline's results."""
    from servelint import model
    from servelint.pipeline.judge import LaunchReport
    from servelint.pipeline.unit import FileResult

    types: list[type] = [FileResult, LaunchReport]
    for obj in vars(model).values():
        if (
            isinstance(obj, type)
            and obj.__module__ == model.__name__
            and (dataclasses.is_dataclass(obj) or issubclass(obj, enum.Enum))
        ):
            types.append(obj)
    return {t.__name__: t for t in types}


def dumps(value: Any) -> str:
    return json.dumps(encode(value), ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CodecError(f"not JSON: {exc}") from None
    try:
        return decode(data)
    except RecursionError:
        raise CodecError("nested too deeply") from None


def encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        if isinstance(value, enum.Enum):
            return {ENUM: type(value).__name__, "v": value.value}
        return value
    if isinstance(value, enum.Enum):
        return {ENUM: type(value).__name__, "v": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if known().get(name) is not type(value):
            raise CodecError(f"cannot encode {name}")
        return {
            TYPE: name,
            "f": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)},
        }
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {TUPLE: [encode(v) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise CodecError("dict keys must be strings")
        if TYPE in value or ENUM in value or TUPLE in value:
            raise CodecError("dict uses a reserved key")
        return {k: encode(v) for k, v in value.items()}
    raise CodecError(f"cannot encode {type(value).__name__}")


def decode(data: Any) -> Any:
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        raise CodecError(f"unexpected {type(data).__name__}")
    if TUPLE in data:
        if len(data) != 1 or not isinstance(data[TUPLE], list):
            raise CodecError("bad tuple")
        return tuple(decode(v) for v in data[TUPLE])
    if ENUM in data:
        cls = known().get(data[ENUM]) if isinstance(data[ENUM], str) else None
        if cls is None or not issubclass(cls, enum.Enum) or set(data) != {ENUM, "v"}:
            raise CodecError(f"unknown enum {data[ENUM]!r}")
        try:
            return cls(data["v"])
        except ValueError:
            raise CodecError(f"bad {cls.__name__} value") from None
    if TYPE in data:
        return _construct(data)
    return {k: decode(v) for k, v in data.items()}


def _construct(data: dict) -> Any:
    name = data[TYPE]
    cls = known().get(name) if isinstance(name, str) else None
    fields = data.get("f")
    if (
        cls is None
        or not dataclasses.is_dataclass(cls)
        or set(data) != {TYPE, "f"}
        or not isinstance(fields, dict)
    ):
        raise CodecError(f"unknown type {name!r}")
    allowed = {f.name: f for f in dataclasses.fields(cls) if f.init}
    if not set(fields) <= set(allowed):
        raise CodecError(f"unknown fields of {name}: {sorted(set(fields) - set(allowed))}")
    missing = [
        n
        for n, f in allowed.items()
        if n not in fields
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise CodecError(f"{name} lacks {missing}")
    values = {k: decode(v) for k, v in fields.items()}
    hints = _hints(cls)
    for key, value in values.items():
        if not _conforms(value, hints.get(key, Any)):
            raise CodecError(f"{name}.{key} has the wrong type")
    try:
        return cls(**values)
    except TypeError as exc:
        raise CodecError(f"bad {name}: {exc}") from None


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a decoded value has the declared field type (a forged entry is a miss, not a
    crash later)."""
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is None:
        if hint is float:
            return isinstance(value, int | float) and not isinstance(value, bool)
        if hint is int:
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, hint) if isinstance(hint, type) else True
    args = typing.get_args(hint)
    if origin is list:
        return isinstance(value, list) and all(_conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items()
        )
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(args) == len(value) and all(map(_conforms, value, args))
    return isinstance(value, origin) if isinstance(origin, type) else True
