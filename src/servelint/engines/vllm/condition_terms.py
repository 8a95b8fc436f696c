"""The values a vLLM validator condition is evaluated over and the operations the evaluator
(``condition_compile``) applies to them: a config object (``Values``), a value the launch does
not decide (``UNKNOWN``), a list of unknown items (``Items``), the calls and methods allowed,
and how truth, comparison and identity treat what is not known (``Undetermined``)."""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Any


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(slots=True, eq=False, repr=False)
class Items:
    """A list of ``n`` items whose values are not known (only its length and truth are)."""

    n: int

    def __repr__(self) -> str:
        return f"Items({self.n})"


class Undetermined(Exception):
    """The test reads something the launch does not decide."""


@dataclass(slots=True, eq=False)
class Values:
    """One config object as the launch builds it: field -> value, a nested ``Values``, or
    ``UNKNOWN``; ``given`` names the fields the launch itself sets."""

    cls: str
    fields: dict[str, Any]
    given: dict[str, Any] = field(default_factory=dict)
    names: dict[str, Any] = field(default_factory=dict)  # a comprehension's variables

    def get(self, name: str) -> Any:
        return self.fields.get(name, UNKNOWN)

    def binding(self, names: dict[str, Any]) -> Values:
        return Values(self.cls, self.fields, self.given, {**self.names, **names})


SAFE_CALLS = {
    "len": len,
    "bool": bool,
    "set": set,
    "tuple": tuple,
    "list": list,
    "sorted": sorted,
    "max": max,
    "min": min,
}
# ``isinstance(x, T)`` with T one of these built-in types (or a tuple of them)
TYPE_NAMES = {
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
}
SAFE_METHODS = {
    str: {
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "startswith",
        "endswith",
        "split",
        "isdigit",
    },
    dict: {"get", "keys", "values"},
}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_ARITH = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_SCALARS = (int, float, str, bool, type(None))
_MAX_POW = 256


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None


def _truth(value: Any) -> bool:
    if isinstance(value, Values):
        return True  # a config object is truthy
    if isinstance(value, Items):
        return value.n > 0
    if value is UNKNOWN:
        raise Undetermined
    return bool(value)


_MAX_ITEMS = 256


def _bind(target: ast.expr, item: Any) -> dict[str, Any]:
    if isinstance(target, ast.Name):
        return {target.id: item}
    if (
        isinstance(target, ast.Tuple)
        and isinstance(item, tuple | list)
        and len(item) == len(target.elts)
        and all(isinstance(t, ast.Name) for t in target.elts)
    ):
        return {t.id: v for t, v in zip(target.elts, item, strict=True)}  # type: ignore[union-attr]
    raise Undetermined


def _known(value: Any) -> Any:
    if value is UNKNOWN or isinstance(value, Values | Items):
        raise Undetermined
    return value


def _plain(value: Any) -> Any:
    """A value made only of scalars and containers of them (what ``==``/``in`` may compare)."""
    if isinstance(value, tuple | list | set | frozenset):
        for item in value:
            _plain(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _plain(key)
            _plain(item)
    elif not isinstance(value, _SCALARS):
        raise Undetermined
    return value


def _known_scalar(value: Any) -> Any:
    if value is UNKNOWN:
        raise Undetermined
    return value


def _identity(left: Any, right: Any, is_: bool) -> bool:
    """``x is None`` / ``x is not None`` (a config object is never None); other identity
    tests only between singletons."""
    for a, b in ((left, right), (right, left)):
        if b is None and isinstance(a, Values | Items):
            return not is_
    left, right = _known(left), _known(right)
    if left is None or right is None:
        return (left is right) == is_
    if not all(isinstance(v, bool) for v in (left, right)):
        raise Undetermined
    return (left is right) == is_


def _types(node: ast.expr) -> tuple[type, ...]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    if not all(isinstance(n, ast.Name) and n.id in TYPE_NAMES for n in names):
        raise Undetermined
    return tuple(TYPE_NAMES[n.id] for n in names)  # type: ignore[union-attr]
