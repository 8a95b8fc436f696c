"""A compact JSON codec for servelint's own result types, safe on data anyone may have written.

``encode(value, cls)`` turns a value of the declared type ``cls`` (a ``FileResult`` with its
findings) into plain JSON; ``decode(doc, cls)`` builds it back. The encoding is directed by
the declared field types, read once per dataclass: a dataclass is the list of its field
values in declaration order, an enum its value, a tuple a list, and every string of a typed
field an index into the document's string table (a finding's renderings repeat across the
findings of a unit: the table holds each once). Nothing is constructed but the declared
types; a document of the wrong shape or type raises ``CodecError`` (the cache treats that as
a miss). Nothing is ever imported, called or evaluated from the data. The cache key covers
servelint's code, so a document is only ever read by the field layout that wrote it.
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


class CodecError(ValueError):
    """The data is not a valid encoding of servelint values."""


Encoder = Callable[[Any, dict[str, int]], Any]  # (value, string table being built) -> JSON
Decoder = Callable[[Any, list[str]], Any]  # (JSON, string table) -> value


def encode(value: Any, cls: Any) -> dict[str, Any]:
    """``{"strings": [...], "value": ...}``: ``value`` (of type ``cls``) as plain JSON."""
    strings: dict[str, int] = {}
    data = _codec(cls)[0](value, strings)
    return {"strings": list(strings), "value": data}


def decode(doc: Any, cls: Any) -> Any:
    """The value of type ``cls`` that ``encode`` wrote as ``doc``, or ``CodecError``."""
    if type(doc) is not dict or doc.keys() != {"strings", "value"}:
        raise CodecError("not an encoded document")
    table = doc["strings"]
    if type(table) is not list or not set(map(type, table)) <= {str}:
        raise CodecError("bad string table")
    try:
        return _codec(cls)[1](doc["value"], table)
    except RecursionError:
        raise CodecError("nested too deeply") from None


def dumps(value: Any, cls: Any) -> str:
    return json.dumps(encode(value, cls), ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes, cls: Any) -> Any:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CodecError(f"not JSON: {exc}") from None
    return decode(doc, cls)


@functools.cache
def _codec(hint: Any) -> tuple[Encoder, Decoder]:
    """The encoder and decoder of one declared type, built once."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is str:
        return _encode_str, _decode_str
    if hint in _SCALARS:
        return _scalar(_SCALARS[hint])
    if hint is Any:
        return _encode_plain, _decode_plain
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is list:
        return _list(args[0])
    if origin is tuple:
        return _tuple(args)
    if origin is dict and args[0] is str:
        return _dict(args[1])
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint)
    return _unsupported(f"cannot encode values of type {hint!r}")


def _unsupported(why: str) -> tuple[Encoder, Decoder]:
    """A type no entry holds a value of (``FileResult.blob``: only ever None in the cache)."""

    def refuse(_value: Any, _table: Any) -> Any:
        raise CodecError(why)

    return refuse, refuse


# ---------------------------------------------------------------- strings and scalars


def _encode_str(value: Any, strings: dict[str, int]) -> int:
    if type(value) is not str:
        raise CodecError("not a string")
    return strings.setdefault(value, len(strings))


def _decode_str(data: Any, table: list[str]) -> str:
    if type(data) is not int or data < 0:
        raise CodecError("not a string index")
    try:
        return table[data]
    except IndexError:
        raise CodecError("string index out of range") from None


_SCALARS: dict[Any, tuple[type, ...]] = {
    int: (int,),
    float: (float, int),
    bool: (bool,),
    type(None): (type(None),),
}


def _scalar(allowed: tuple[type, ...]) -> tuple[Encoder, Decoder]:
    def check(value: Any, _table: Any) -> Any:
        if type(value) not in allowed:
            raise CodecError(f"not {' or '.join(t.__name__ for t in allowed)}")
        return value

    return check, check


def _encode_plain(value: Any, strings: dict[str, int]) -> Any:
    """A field of type ``Any``: plain JSON only (strings, numbers, lists, string-keyed dicts)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if type(value) is list:
        return [_encode_plain(v, strings) for v in value]
    if type(value) is dict and all(type(k) is str for k in value):
        return {k: _encode_plain(v, strings) for k, v in value.items()}
    raise CodecError(f"cannot encode {type(value).__name__} as plain JSON")


def _decode_plain(data: Any, _table: list[str]) -> Any:
    return data  # JSON parsing gives plain values only


# ---------------------------------------------------------------- composite types


def _union(args: tuple) -> tuple[Encoder, Decoder]:
    rest = [a for a in args if a is not type(None)]
    if len(rest) == 1 and len(args) == 2:  # X | None
        enc, dec = _codec(rest[0])
        return (
            lambda value, strings: None if value is None else enc(value, strings),
            lambda data, table: None if data is None else dec(data, table),
        )
    if all(a in _SCALARS or a is str for a in args):  # str | int | None: the raw value
        return _scalar(tuple(args))
    return _unsupported(f"cannot encode a union of {args!r}")


def _list(item: Any) -> tuple[Encoder, Decoder]:
    if item is str:  # (renderings, argv texts: the longest lists of an entry)
        return _encode_str_list, _decode_str_list
    enc, dec = _codec(item)

    def encode_list(value: Any, strings: dict[str, int]) -> list:
        if type(value) is not list:
            raise CodecError("not a list")
        return [enc(v, strings) for v in value]

    def decode_list(data: Any, table: list[str]) -> list:
        if type(data) is not list:
            raise CodecError("not a list")
        return [dec(v, table) for v in data]

    return encode_list, decode_list


def _encode_str_list(value: Any, strings: dict[str, int]) -> list[int]:
    if type(value) is not list:
        raise CodecError("not a list")
    return [_encode_str(v, strings) for v in value]


def _decode_str_list(data: Any, table: list[str]) -> list[str]:
    if type(data) is not list or not set(map(type, data)) <= {int}:  # (type checks in C)
        raise CodecError("not a list of string indices")
    if data and (min(data) < 0 or max(data) >= len(table)):
        raise CodecError("string index out of range")
    return list(map(table.__getitem__, data))


def _tuple(args: tuple) -> tuple[Encoder, Decoder]:
    repeat = len(args) == 2 and args[1] is Ellipsis
    codecs = [_codec(a) for a in (args[:1] if repeat else args)]

    def encode_tuple(value: Any, strings: dict[str, int]) -> list:
        if type(value) is not tuple or (not repeat and len(value) != len(codecs)):
            raise CodecError("not a tuple of the declared length")
        if repeat:
            return [codecs[0][0](v, strings) for v in value]
        return [c[0](v, strings) for c, v in zip(codecs, value, strict=True)]

    def decode_tuple(data: Any, table: list[str]) -> tuple:
        if type(data) is not list or (not repeat and len(data) != len(codecs)):
            raise CodecError("not a tuple of the declared length")
        if repeat:
            return tuple(codecs[0][1](v, table) for v in data)
        return tuple(c[1](v, table) for c, v in zip(codecs, data, strict=True))

    return encode_tuple, decode_tuple


def _dict(value_type: Any) -> tuple[Encoder, Decoder]:
    enc, dec = _codec(value_type)

    def encode_dict(value: Any, strings: dict[str, int]) -> dict:
        if type(value) is not dict or not all(type(k) is str for k in value):
            raise CodecError("not a mapping with string keys")
        return {k: enc(v, strings) for k, v in value.items()}

    def decode_dict(data: Any, table: list[str]) -> dict:
        if type(data) is not dict:
            raise CodecError("not a mapping")
        return {k: dec(v, table) for k, v in data.items()}

    return encode_dict, decode_dict


def _enum(cls: type[enum.Enum]) -> tuple[Encoder, Decoder]:
    members = {m.value: m for m in cls}
    kinds = {type(v) for v in members}

    def encode_enum(value: Any, _strings: dict[str, int]) -> Any:
        if not isinstance(value, cls):
            raise CodecError(f"not a {cls.__name__}")
        return value.value

    def decode_enum(data: Any, _table: list[str]) -> Any:
        if type(data) not in kinds or data not in members:  # (a bool is no IntEnum value)
            raise CodecError(f"not a {cls.__name__}")
        return members[data]

    return encode_enum, decode_enum


def _dataclass(cls: type) -> tuple[Encoder, Decoder]:
    """A dataclass as the list of its fields' values, in declaration order."""
    name = cls.__name__
    fields = [f for f in dataclasses.fields(cls) if f.init]
    hints = typing.get_type_hints(cls)
    names = [f.name for f in fields]
    codecs = [_codec(hints.get(f.name, Any)) for f in fields]
    encoders = list(zip(names, (c[0] for c in codecs), strict=True))
    decoders = [c[1] for c in codecs]

    def encode_dataclass(value: Any, strings: dict[str, int]) -> list:
        if type(value) is not cls:
            raise CodecError(f"not a {name}")
        return [enc(getattr(value, n), strings) for n, enc in encoders]

    def decode_dataclass(data: Any, table: list[str]) -> Any:
        if type(data) is not list or len(data) != len(decoders):
            raise CodecError(f"not a {name}")
        try:
            return cls(*[dec(v, table) for dec, v in zip(decoders, data, strict=True)])
        except CodecError as exc:
            raise CodecError(f"{name}: {exc}") from None

    return encode_dataclass, decode_dataclass
