"""The numeric bounds a ``field_validator`` enforces, read from its body with ``ast``.

Only a body of this exact shape is read (anything else: nothing recorded, so nothing judged):
an optional docstring, an optional ``if v is None: return v``, then ``if COND: raise …``
statements and a final ``return v``, where ``COND`` compares the value with number literals:
``v < 0``, ``v <= 0``, ``not 0 <= v <= 1``, or an ``or`` of those. Each refusal is
``{"op": "<", "value": 0}`` (refused when ``v < 0``) or ``{"outside": [0, 1], "ops": ["<=",
"<="]}`` (refused unless ``0 <= v <= 1``), with the line of its ``raise``; without the
``None`` guard, ``{"none": True}``: comparing ``None`` with a number raises ``TypeError``.
"""

from __future__ import annotations

import ast
from typing import Any

_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def refusals(fn: ast.FunctionDef) -> list[dict[str, Any]] | None:
    """The refusals of field validator ``fn``, or None when its body is not of the shape
    above."""
    args = fn.args.args
    if len(args) < 2:
        return None
    return _body_refusals(fn, _Subject(args[1].arg))


def model_refusals(fn: ast.FunctionDef) -> tuple[str, list[dict[str, Any]]] | None:
    """(field, refusals) of a ``mode="after"`` model validator whose tests all compare one
    field ``self.F`` with numbers (``if self.F <= 0: raise …; return self``), else None."""
    args = fn.args.args
    if not args:
        return None
    fields = {
        n.attr
        for n in ast.walk(fn)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == args[0].arg
        and isinstance(n.ctx, ast.Load)
    }
    if len(fields) != 1:
        return None
    field = next(iter(fields))
    got = _body_refusals(fn, _Subject(args[0].arg, field), returns_self=True)
    return (field, got) if got else None


class _Subject:
    """The value a validator tests: ``v`` (a parameter) or ``self.F``."""

    def __init__(self, name: str, attr: str | None = None):
        self.name, self.attr = name, attr

    def __call__(self, node: ast.expr) -> bool:
        if self.attr is None:
            return _is_name(node, self.name)
        return (
            isinstance(node, ast.Attribute)
            and node.attr == self.attr
            and _is_name(node.value, self.name)
        )


def _body_refusals(
    fn: ast.FunctionDef, subject: _Subject, returns_self: bool = False
) -> list[dict[str, Any]] | None:
    name = subject
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    none_passes = bool(body) and _none_passes(body[0], name)
    if none_passes:
        body = body[1:]
    last = _Subject(subject.name) if returns_self else subject
    if not body or not _returns(body[-1], last):
        return None
    out: list[dict[str, Any]] = []
    for st in body[:-1]:
        if not (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1):
            return None
        if not isinstance(st.body[0], ast.Raise):
            return None
        conds = _conditions(st.test, name)
        if conds is None:
            return None
        out += [dict(c, line=st.body[0].lineno) for c in conds]
    if out and not none_passes:  # `None < 0` raises TypeError: None is refused too
        out.append({"none": True, "line": body[0].lineno})
    return out or None


def _none_passes(st: ast.stmt, name: _Subject) -> bool:
    """``if v is None: return v`` (or ``return None``)."""
    return (
        isinstance(st, ast.If)
        and not st.orelse
        and isinstance(st.test, ast.Compare)
        and name(st.test.left)
        and len(st.test.ops) == 1
        and isinstance(st.test.ops[0], ast.Is)
        and isinstance(st.test.comparators[0], ast.Constant)
        and st.test.comparators[0].value is None
        and len(st.body) == 1
        and isinstance(st.body[0], ast.Return)
        and (
            st.body[0].value is None
            or name(st.body[0].value)
            or (isinstance(st.body[0].value, ast.Constant) and st.body[0].value.value is None)
        )
    )


def _returns(st: ast.stmt, name: _Subject) -> bool:
    return isinstance(st, ast.Return) and st.value is not None and name(st.value)


def _conditions(test: ast.expr, name: _Subject) -> list[dict[str, Any]] | None:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        out: list[dict[str, Any]] = []
        for v in test.values:
            got = _conditions(v, name)
            if got is None:
                return None
            out += got
        return out
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _between(test.operand, name)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and name(test.left)
        and type(test.ops[0]) in _OPS
    ):
        value = _number_or_none(test.comparators[0])
        if value is not None:
            return [{"op": _OPS[type(test.ops[0])], "value": value}]
    return None


def _between(test: ast.expr, name: _Subject) -> list[dict[str, Any]] | None:
    """``a <= v <= b`` (either op ``<`` or ``<=``) under a ``not``."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 2):
        return None
    low, high = _number_or_none(test.left), _number_or_none(test.comparators[1])
    ops = [_OPS.get(type(o)) for o in test.ops]
    if (
        low is None
        or high is None
        or not name(test.comparators[0])
        or any(o not in ("<", "<=") for o in ops)
    ):
        return None
    return [{"outside": [low, high], "ops": ops}]


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _number_or_none(node: ast.expr) -> int | float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number_or_none(node.operand)
        return -inner if inner is not None else None
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    return None
