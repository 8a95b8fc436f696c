"""Expressions in vLLM's argument-registration code, evaluated statically (no import).

The part of ``parser_interp.Interpreter`` that computes values: literals, f-strings, lists and
dicts (with ``*``/``**``), ``+``, ``not``/``and``/``or``, comparisons, subscripts and slices,
conditional expressions and simple list comprehensions. Names, attributes, calls and
assignments are the interpreter's (``lookup``, ``attribute``, ``call``, ``assign``). What is not
modelled evaluates to ``Opaque``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from servelint.engines.vllm.builder.parser_types import TypeFn


class PartialList(list):
    """A list whose tail depends on something unknown (e.g. the platform)."""


class Opaque:
    """A value the interpreter cannot know."""

    def __init__(self, text: str = "?"):
        self.text = text

    def __repr__(self) -> str:
        return f"Opaque({self.text})"


UNKNOWN = Opaque()


class Expressions:
    """Evaluate one expression node (mixed into the Interpreter)."""

    def lookup(self, name: str, module: str, env: dict[str, Any]) -> Any:
        raise NotImplementedError

    def attribute(self, node: ast.Attribute, module: str, env: dict[str, Any], depth: int):
        raise NotImplementedError

    def call(self, node: ast.Call, module: str, env: dict[str, Any], depth: int) -> Any:
        raise NotImplementedError

    def assign(
        self, target: ast.AST, value: Any, module: str, env: dict[str, Any], depth: int
    ) -> None:
        raise NotImplementedError

    def eval(self, node: ast.AST | None, module: str, env: dict[str, Any], depth: int) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id, module, env)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, module, env, depth)
        if isinstance(node, ast.Call):
            return self.call(node, module, env, depth)
        if isinstance(node, ast.Lambda):
            return TypeFn("lambda", text=ast.unparse(node))
        handler = _EVALUATORS.get(type(node))
        if handler is None or (isinstance(node, ast.Compare) and len(node.ops) != 1):
            return _opaque(node)
        return handler(self, node, module, env, depth)

    def _fstring(self, node: ast.JoinedStr, module: str, env: dict[str, Any], depth: int):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.eval(v.value, module, env, depth)  # type: ignore[attr-defined]
                if isinstance(val, (str, int, float)):
                    parts.append(str(val))
                else:
                    return Opaque(ast.unparse(node))
        return "".join(parts)

    def _sequence(
        self, node: ast.List | ast.Tuple | ast.Set, module: str, env: dict[str, Any], depth: int
    ):
        out: list[Any] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, module, env, depth)
                if isinstance(v, (list, tuple)):
                    out.extend(v)
                else:
                    out.append(UNKNOWN)
            else:
                out.append(self.eval(e, module, env, depth))
        return tuple(out) if isinstance(node, ast.Tuple) else out

    def _dict(self, node: ast.Dict, module: str, env: dict[str, Any], depth: int):
        d: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                sub = self.eval(v, module, env, depth)
                if isinstance(sub, dict):
                    d.update(sub)
            else:
                d[self.eval(k, module, env, depth)] = self.eval(v, module, env, depth)
        return d

    def _binop(self, node: ast.BinOp, module: str, env: dict[str, Any], depth: int):
        left = self.eval(node.left, module, env, depth)
        right = self.eval(node.right, module, env, depth)
        if (
            isinstance(node.op, ast.Add)
            and type(left) is type(right)
            and isinstance(left, (str, list, int))
        ):
            return left + right
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            return left
        if isinstance(node.op, ast.Add) and isinstance(left, list) and isinstance(right, Opaque):
            return PartialList(left)
        return Opaque(ast.unparse(node))

    def _unary(self, node: ast.UnaryOp, module: str, env: dict[str, Any], depth: int):
        if isinstance(node.op, ast.Not):
            v = self.eval(node.operand, module, env, depth)
            return UNKNOWN if isinstance(v, Opaque) else not v
        if isinstance(node.op, ast.USub):
            v = self.eval(node.operand, module, env, depth)
            return -v if isinstance(v, (int, float)) else UNKNOWN
        return _opaque(node)

    def _boolop(self, node: ast.BoolOp, module: str, env: dict[str, Any], depth: int):
        vals = [self.eval(v, module, env, depth) for v in node.values]
        if any(isinstance(v, Opaque) for v in vals):
            if isinstance(node.op, ast.And) and any(
                not v for v in vals if not isinstance(v, Opaque)
            ):
                return False
            if isinstance(node.op, ast.Or) and any(v for v in vals if not isinstance(v, Opaque)):
                return True
            return UNKNOWN
        return all(vals) if isinstance(node.op, ast.And) else any(vals)

    def _compare(self, node: ast.Compare, module: str, env: dict[str, Any], depth: int):
        left = self.eval(node.left, module, env, depth)
        right = self.eval(node.comparators[0], module, env, depth)
        if isinstance(left, Opaque) or isinstance(right, Opaque):
            return UNKNOWN
        compare = _COMPARISONS.get(type(node.ops[0]))
        if compare is None:
            return UNKNOWN
        try:
            return compare(left, right)
        except TypeError:
            return UNKNOWN

    def _subscript(self, node: ast.Subscript, module: str, env: dict[str, Any], depth: int):
        base = self.eval(node.value, module, env, depth)
        if isinstance(node.slice, ast.Slice) and isinstance(base, list):
            lo = self.eval(node.slice.lower, module, env, depth)
            hi = self.eval(node.slice.upper, module, env, depth)
            if all(x is None or isinstance(x, int) for x in (lo, hi)):
                return base[lo:hi]
            return Opaque(ast.unparse(node))
        key = self.eval(node.slice, module, env, depth)
        if isinstance(base, dict) and not isinstance(key, Opaque):
            return base.get(key, UNKNOWN)
        if isinstance(base, (list, tuple)) and isinstance(key, int):
            return base[key] if -len(base) <= key < len(base) else UNKNOWN
        return Opaque(ast.unparse(node))

    def _ifexp(self, node: ast.IfExp, module: str, env: dict[str, Any], depth: int):
        t = self.eval(node.test, module, env, depth)
        if isinstance(t, Opaque):
            return Opaque(ast.unparse(node))
        return self.eval(node.body if t else node.orelse, module, env, depth)

    def _listcomp(self, node: ast.ListComp, module: str, env: dict[str, Any], depth: int):
        if len(node.generators) != 1:
            return _opaque(node)
        gen = node.generators[0]
        it = self.eval(gen.iter, module, env, depth)
        if not isinstance(it, (list, tuple)) or gen.ifs:
            return _opaque(node)
        out_list = []
        for item in it:
            inner = dict(env)
            self.assign(gen.target, item, module, inner, depth)
            out_list.append(self.eval(node.elt, module, inner, depth))
        return out_list


def _opaque(node: ast.AST) -> Opaque:
    """What an expression the interpreter does not model stands for."""
    return Opaque(ast.unparse(node)[:60])


_COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}
# expression node type -> the Interpreter method that evaluates it
_EVALUATORS: dict[type, Callable[..., Any]] = {
    ast.JoinedStr: Expressions._fstring,
    ast.List: Expressions._sequence,
    ast.Tuple: Expressions._sequence,
    ast.Set: Expressions._sequence,
    ast.Dict: Expressions._dict,
    ast.BinOp: Expressions._binop,
    ast.UnaryOp: Expressions._unary,
    ast.BoolOp: Expressions._boolop,
    ast.Compare: Expressions._compare,
    ast.Subscript: Expressions._subscript,
    ast.IfExp: Expressions._ifexp,
    ast.ListComp: Expressions._listcomp,
}
