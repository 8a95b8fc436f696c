"""What the vLLM builder's interpreter holds besides plain values: the parser objects it
builds, references to classes and functions of the wheel, and the methods of plain Python
values (``dict``/``list``/``str``) it models (``value_method``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servelint.builders.astutil import Definition
from servelint.builders.expressions import UNKNOWN, Opaque


@dataclass
class ParserObj:
    actions: list[dict[str, Any]] = field(default_factory=list)
    allow_abbrev: bool = True


@dataclass
class GroupObj:
    parser: ParserObj
    title: str


@dataclass
class ClassRef:
    d: Definition


@dataclass
class FuncRef:
    d: Definition
    bound: Any = None  # the class for classmethods / super()
    owner: Any = None  # the class whose body defines the method


@dataclass
class ActionClass:
    name: str  # BooleanOptionalAction, store_true..., or a custom class name
    d: Definition | None = None


def value_method(
    obj: Any, name: str, args: list[Any], kwargs: dict[str, Any], where: str, notes: list[str]
) -> Any:
    """``obj.name(*args, **kwargs)`` for the dict, list and str methods registration code
    uses (in place, as Python would); UNKNOWN for anything else. ``where`` (module:line)
    prefixes the notes of a ``remove`` that finds nothing."""
    if isinstance(obj, dict):
        return _dict_method(obj, name, args, kwargs)
    if isinstance(obj, list):
        return _list_method(obj, name, args, where, notes)
    if isinstance(obj, str):
        return _str_method(obj, name, args)
    return UNKNOWN


def _dict_method(obj: dict, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if name in {"items", "keys", "values"}:
        return list(getattr(obj, name)())
    if name == "pop":
        key = args[0] if args else None
        return obj.pop(key, args[1] if len(args) > 1 else None)
    if name in {"get", "setdefault"}:
        return getattr(obj, name)(args[0], args[1] if len(args) > 1 else None)
    if name == "update":
        if args and isinstance(args[0], dict):
            obj.update(args[0])
        obj.update({k: v for k, v in kwargs.items() if not k.startswith("__")})
        return None
    return UNKNOWN


def _list_method(obj: list, name: str, args: list[Any], where: str, notes: list[str]) -> Any:
    if name == "remove" and args:
        if args[0] in obj:
            obj.remove(args[0])
        elif not isinstance(args[0], Opaque):
            notes.append(f"{where}: remove({args[0]!r}) not in list")
        else:
            notes.append(f"{where}: remove of unknown value")
        return None
    if name == "append" and args:
        obj.append(args[0])
        return None
    if name == "extend" and args and isinstance(args[0], (list, tuple)):
        obj.extend(args[0])
        return None
    return UNKNOWN


def _str_method(obj: str, name: str, args: list[Any]) -> Any:
    if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
        return obj.replace(args[0], args[1])
    if name in {"strip", "lower", "upper"}:
        return getattr(obj, name)()
    texts = args[0] if args and isinstance(args[0], (list, tuple)) else None
    if name == "join" and texts is not None and all(isinstance(a, str) for a in texts):
        return obj.join(texts)
    if name == "format":
        return obj  # a help text's template is as good as it gets here
    return UNKNOWN


def argparse_attr(attr: str) -> Any:
    if attr.endswith("Action") or attr in {"BooleanOptionalAction"}:
        return ActionClass(attr)
    if attr == "SUPPRESS":
        return "==SUPPRESS=="
    return Opaque(f"argparse.{attr}")
