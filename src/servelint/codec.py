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
from collections.abc import Callable
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
    if cls is None or not dataclasses.is_dataclass(cls) or set(data) != {TYPE, "f"}:
        raise CodecError(f"unknown type {name!r}")
    return _constructor(cls)(data["f"])


@functools.cache
def _constructor(cls: type) -> Callable[[Any], Any]:
    """``fields -> cls(**fields)``, each field decoded and checked by a decoder built once
    from its declared type (``_decoder``)."""
    name = cls.__name__
    fields = [f for f in dataclasses.fields(cls) if f.init]
    hints = typing.get_type_hints(cls)
    decoders = {f.name: _decoder(hints.get(f.name, Any)) for f in fields}
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )

    def construct(values: Any) -> Any:
        if not isinstance(values, dict):
            raise CodecError(f"unknown type {name!r}")
        if not values.keys() <= decoders.keys():
            raise CodecError(f"unknown fields of {name}: {sorted(values.keys() - decoders)}")
        if not required <= values.keys():
            raise CodecError(f"{name} lacks {sorted(required - values.keys())}")
        try:
            return cls(**{k: decoders[k](v) for k, v in values.items()})
        except CodecError as exc:
            raise CodecError(f"{name}: {exc}") from None
        except TypeError as exc:
            raise CodecError(f"bad {name}: {exc}") from None

    return construct


Decoder = Callable[[Any], Any]


def _decoder(hint: Any) -> Decoder:
    """A function decoding JSON data to a value of type ``hint`` or raising ``CodecError``:
    the generic ``decode`` and ``_conforms`` in one pass, dispatched once per field type."""
    if hint is Any:
        return decode
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union_decoder([_decoder(h) for h in args], type(None) in args)
    if origin is list:
        return _list_decoder(_decoder(args[0]))
    if origin is dict:
        return _dict_decoder(_decoder(args[0]), _decoder(args[1]))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_decoder([_decoder(args[0])], repeat=True)
        return _tuple_decoder([_decoder(h) for h in args], repeat=False)
    if hint in _SCALARS:
        return _SCALARS[hint]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum_decoder(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_decoder(hint)
    return _checked_decoder(hint)


def _scalar(check: Callable[[Any], bool], what: str) -> Decoder:
    def decode_scalar(data: Any) -> Any:
        if check(data):
            return data
        raise CodecError(f"not {what}")

    return decode_scalar


_SCALARS: dict[Any, Decoder] = {
    str: _scalar(lambda v: type(v) is str, "a string"),
    int: _scalar(lambda v: type(v) is int, "an integer"),
    float: _scalar(lambda v: type(v) is float or type(v) is int, "a number"),
    bool: _scalar(lambda v: type(v) is bool, "a boolean"),
    type(None): _scalar(lambda v: v is None, "null"),
}


def _union_decoder(options: list[Decoder], nullable: bool) -> Decoder:
    rest = [d for d in options if d is not _SCALARS[type(None)]]
    if nullable and len(rest) == 1:
        only = rest[0]
        return lambda data: None if data is None else only(data)

    def decode_union(data: Any) -> Any:
        for option in options:
            try:
                return option(data)
            except CodecError:
                continue
        raise CodecError("matches no type of a union")

    return decode_union


def _list_decoder(item: Decoder) -> Decoder:
    if item is _SCALARS[str]:  # (renderings, argv texts: the longest lists of an entry)
        return _list_of_strings

    def decode_list(data: Any) -> list:
        if type(data) is not list:
            raise CodecError("not a list")
        return [item(v) for v in data]

    return decode_list


def _list_of_strings(data: Any) -> list:
    if type(data) is not list or not all(type(v) is str for v in data):
        raise CodecError("not a list of strings")
    return data


def _dict_decoder(key: Decoder, value: Decoder) -> Decoder:
    def decode_dict(data: Any) -> dict:
        if type(data) is not dict or TYPE in data or ENUM in data or TUPLE in data:
            raise CodecError("not a mapping")
        return {key(k): value(v) for k, v in data.items()}

    return decode_dict


def _tuple_decoder(items: list[Decoder], *, repeat: bool) -> Decoder:
    def decode_tuple(data: Any) -> tuple:
        if type(data) is not dict or len(data) != 1 or type(data.get(TUPLE)) is not list:
            raise CodecError("not a tuple")
        values = data[TUPLE]
        if repeat:
            return tuple(items[0](v) for v in values)
        if len(values) != len(items):
            raise CodecError("tuple of the wrong length")
        return tuple(d(v) for d, v in zip(items, values, strict=True))

    return decode_tuple


def _enum_decoder(cls: type[enum.Enum]) -> Decoder:
    def decode_enum(data: Any) -> Any:
        if type(data) is not dict or data.get(ENUM) != cls.__name__ or len(data) != 2:
            raise CodecError(f"not a {cls.__name__}")
        return decode(data)

    return decode_enum


def _dataclass_decoder(cls: type) -> Decoder:
    name = cls.__name__

    def decode_dataclass(data: Any) -> Any:
        if type(data) is not dict or data.get(TYPE) != name or len(data) != 2 or "f" not in data:
            raise CodecError(f"not a {name}")
        if known().get(name) is not cls:
            raise CodecError(f"unknown type {name!r}")
        return _constructor(cls)(data["f"])

    return decode_dataclass


def _checked_decoder(hint: Any) -> Decoder:
    def decode_checked(data: Any) -> Any:
        value = decode(data)
        if not _conforms(value, hint):
            raise CodecError("has the wrong type")
        return value

    return decode_checked


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
