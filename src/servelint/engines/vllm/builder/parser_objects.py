"""What the vLLM builder's interpreter holds besides plain values: the parser objects it
builds, references to classes and functions of the wheel, and the methods of plain Python
values (``dict``/``list``/``str``) it models (``value_method``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servelint.engines._build.astutil import Definition
from servelint.engines._build.expressions import UNKNOWN, Opaque


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
        if name == "items":
            return list(obj.items())
        if name == "keys":
            return list(obj.keys())
        if name == "values":
            return list(obj.values())
        if name == "pop":
            key = args[0] if args else None
            return obj.pop(key, args[1] if len(args) > 1 else None)
        if name == "get":
            return obj.get(args[0], args[1] if len(args) > 1 else None)
        if name == "update":
            if args and isinstance(args[0], dict):
                obj.update(args[0])
            obj.update({k: v for k, v in kwargs.items() if not k.startswith("__")})
            return None
        if name == "setdefault":
            return obj.setdefault(args[0], args[1] if len(args) > 1 else None)
        return UNKNOWN
    if isinstance(obj, list):
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
    if isinstance(obj, str):
        if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
            return obj.replace(args[0], args[1])
        if name in {"strip", "lower", "upper"}:
            return getattr(obj, name)()
        if (
            name == "join"
            and args
            and isinstance(args[0], (list, tuple))
            and all(isinstance(a, str) for a in args[0])
        ):
            return obj.join(args[0])
        if name == "format":
            return obj
        return UNKNOWN
    return UNKNOWN


def argparse_attr(attr: str) -> Any:
    if attr.endswith("Action") or attr in {"BooleanOptionalAction"}:
        return ActionClass(attr)
    if attr == "SUPPRESS":
        return "==SUPPRESS=="
    return Opaque(f"argparse.{attr}")
