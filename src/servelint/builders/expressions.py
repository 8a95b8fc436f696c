"""The one static expression evaluator of the profile builders (no import, no execution).

``Expressions.eval(node, module, env, depth)`` computes what a Python expression of an engine's
source stands for: literals, f-strings, lists/tuples/sets/dicts (with ``*``/``**``), arithmetic,
``not``/``and``/``or``, one comparison, subscripts and slices, conditional expressions and
one-generator list comprehensions. What names, attributes and calls mean is the subclass's
(``name_value``, ``attribute_value``, ``call_value``): ``static_eval.Evaluator`` reads
module-level constants (SGLang, TensorRT-LLM, Dynamo), the vLLM builder's ``Interpreter`` runs
argument-registration code. Anything not modelled is ``Opaque`` (falsy; ``UNKNOWN`` is the
one without a text).

Two modes, one per subclass (``STRICT``): a strict evaluator knows a container entirely or
not at all (a choice list with one unknown element is ``UNKNOWN``: no partial list can ever
refuse a value the engine accepts); a partial one keeps the unknown elements in place (the
interpreter follows kwargs tables whose values it may not all know) and marks a list extended
by something unknown as a ``PartialList``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any


class Opaque:
    """A value the evaluator cannot know (falsy, so ``value or default`` falls back)."""

    def __init__(self, text: str = "?"):
        self.text = text

    def __repr__(self) -> str:
        return "UNKNOWN" if self.text == "?" else f"Opaque({self.text})"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Any = Opaque()


class PartialList(list):
    """A list whose tail depends on something unknown (e.g. the platform)."""


_CONTAINERS = (list, tuple, set, frozenset, dict)


class Expressions:
    """Evaluate one expression node; subclasses say what names, attributes and calls mean."""

    STRICT = True

    # ---- what the subclass models --------------------------------------------------------
    def name_value(self, name: str, module: str, env: dict[str, Any]) -> Any:
        return env.get(name, UNKNOWN)

    def attribute_value(self, node: ast.Attribute, module: str, env: dict[str, Any], depth: int):
        return self.unknown(node)

    def call_value(self, node: ast.Call, module: str, env: dict[str, Any], depth: int) -> Any:
        return self.unknown(node)

    def function_value(self, node: ast.Lambda) -> Any:
        return self.unknown(node)

    def is_marker(self, value: Any) -> bool:
        """Whether ``value`` is the subclass's stand-in for a class/module/function."""
        return False

    def assign(
        self, target: ast.AST, value: Any, module: str, env: dict[str, Any], depth: int
    ) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            items = value if isinstance(value, list | tuple) else ()
            same = len(items) == len(target.elts)
            for i, t in enumerate(target.elts):
                self.assign(t, items[i] if same else UNKNOWN, module, env, depth)

    def iterate(self, value: Any) -> Any:
        """The items ``for x in value`` sees (UNKNOWN when not known)."""
        if isinstance(value, list | tuple) and not self.is_marker(value):
            return list(value)
        if self.STRICT and isinstance(value, set | frozenset | dict):
            return list(value)
        return UNKNOWN

    # ---- evaluation ------------------------------------------------------------------------
    def unknown(self, node: ast.AST) -> Opaque:
        """What an expression the evaluator does not model stands for."""
        return UNKNOWN if self.STRICT else Opaque(ast.unparse(node)[:60])

    def eval(
        self, node: ast.AST | None, module: str, env: dict[str, Any] | None = None, depth: int = 0
    ) -> Any:
        return self._eval(node, module, {} if env is None else env, depth)

    def _eval(self, node: ast.AST | None, module: str, env: dict[str, Any], depth: int = 0) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name_value(node.id, module, env)
        if isinstance(node, ast.Attribute):
            return self.attribute_value(node, module, env, depth)
        if isinstance(node, ast.Call):
            return self.call_value(node, module, env, depth)
        if isinstance(node, ast.Lambda):
            return self.function_value(node)
        handler = _EVALUATORS.get(type(node))
        if handler is None or (isinstance(node, ast.Compare) and len(node.ops) != 1):
            return self.unknown(node)
        return handler(self, node, module, env, depth)

    def _fstring(self, node: ast.JoinedStr, module: str, env: dict[str, Any], depth: int):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            text = self._formatted(v, module, env, depth)  # type: ignore[arg-type]
            if text is None:
                return self.unknown(node)
            parts.append(text)
        return "".join(parts)

    def _formatted(
        self, v: ast.FormattedValue, module: str, env: dict[str, Any], depth: int
    ) -> str | None:
        """One ``{value!conversion:spec}`` of an f-string (None when not known)."""
        val = self._eval(v.value, module, env, depth)
        if not isinstance(val, str | int | float):
            return None
        if v.conversion in (114, 97):  # !r, !a
            val = repr(val) if v.conversion == 114 else ascii(val)
        spec = "" if v.format_spec is None else self._eval(v.format_spec, module, env, depth)
        if not isinstance(spec, str):
            return None
        try:
            return format(val, spec)
        except ValueError:
            return None

    def _sequence(
        self, node: ast.List | ast.Tuple | ast.Set, module: str, env: dict[str, Any], depth: int
    ):
        out: list[Any] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                v = self._eval(e.value, module, env, depth)
                items = self.iterate(v)
                if items is not UNKNOWN:
                    out.extend(items)
                elif self.STRICT:
                    return UNKNOWN
                else:
                    out.append(UNKNOWN)
                continue
            v = self._eval(e, module, env, depth)
            if self.STRICT and isinstance(v, Opaque):
                return UNKNOWN
            out.append(v)
        if isinstance(node, ast.Tuple):
            return tuple(out)
        return set(out) if isinstance(node, ast.Set) and self.STRICT else out

    def _dict(self, node: ast.Dict, module: str, env: dict[str, Any], depth: int):
        d: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                sub = self._eval(v, module, env, depth)
                if isinstance(sub, dict):
                    d.update(sub)
                elif self.STRICT:
                    return UNKNOWN
                continue
            key = self._eval(k, module, env, depth)
            if self.STRICT and (isinstance(key, Opaque) or isinstance(key, list | dict | set)):
                return UNKNOWN
            d[key] = self._eval(v, module, env, depth)  # values may be unknown: keys still count
        return d

    def _binop(self, node: ast.BinOp, module: str, env: dict[str, Any], depth: int):
        left = self._eval(node.left, module, env, depth)
        right = self._eval(node.right, module, env, depth)
        if not self.STRICT and isinstance(node.op, ast.Mod) and isinstance(left, str):
            return left  # a %-formatted help text: its template is as good as it gets here
        if isinstance(left, Opaque) or isinstance(right, Opaque):
            if not self.STRICT and isinstance(node.op, ast.Add) and isinstance(left, list):
                return PartialList(left)
            return self.unknown(node)
        if self.is_marker(left) or self.is_marker(right):
            return self.unknown(node)
        if isinstance(left, PartialList) or isinstance(right, PartialList):
            return self.unknown(node)  # still partial: its length is not known
        value = _arithmetic(node.op, left, right)
        return self.unknown(node) if value is UNKNOWN else value

    def _unary(self, node: ast.UnaryOp, module: str, env: dict[str, Any], depth: int):
        v = self._eval(node.operand, module, env, depth)
        if isinstance(v, Opaque) or self.is_marker(v):
            return self.unknown(node)
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(v, int | float) and not isinstance(v, bool):
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return v
        return self.unknown(node)

    def _boolop(self, node: ast.BoolOp, module: str, env: dict[str, Any], depth: int):
        vals = [self._eval(v, module, env, depth) for v in node.values]
        if any(isinstance(v, Opaque) for v in vals):
            known = [v for v in vals if not isinstance(v, Opaque)]
            if isinstance(node.op, ast.And) and any(not v for v in known):
                return False
            if isinstance(node.op, ast.Or) and any(v for v in known):
                return True
            return self.unknown(node)
        return all(vals) if isinstance(node.op, ast.And) else any(vals)

    def _compare(self, node: ast.Compare, module: str, env: dict[str, Any], depth: int):
        left = self._eval(node.left, module, env, depth)
        right = self._eval(node.comparators[0], module, env, depth)
        compare = _COMPARISONS.get(type(node.ops[0]))
        if isinstance(left, Opaque) or isinstance(right, Opaque) or compare is None:
            return self.unknown(node)
        try:
            return compare(left, right)
        except TypeError:
            return self.unknown(node)

    def _subscript(self, node: ast.Subscript, module: str, env: dict[str, Any], depth: int):
        base = self._eval(node.value, module, env, depth)
        if isinstance(node.slice, ast.Slice):
            lo = self._eval(node.slice.lower, module, env, depth)
            hi = self._eval(node.slice.upper, module, env, depth)
            if isinstance(base, list) and all(x is None or isinstance(x, int) for x in (lo, hi)):
                return base[lo:hi]
            return self.unknown(node)
        key = self._eval(node.slice, module, env, depth)
        if isinstance(key, Opaque) or self.is_marker(base):
            return self.unknown(node)
        if isinstance(base, dict):
            return base.get(key, UNKNOWN) if _hashable(key) else UNKNOWN
        if isinstance(base, list | tuple) and isinstance(key, int):
            return base[key] if -len(base) <= key < len(base) else UNKNOWN
        return self.unknown(node)

    def _ifexp(self, node: ast.IfExp, module: str, env: dict[str, Any], depth: int):
        t = self._eval(node.test, module, env, depth)
        if isinstance(t, Opaque):
            return self.unknown(node)
        return self._eval(node.body if t else node.orelse, module, env, depth)

    def _listcomp(self, node: ast.ListComp, module: str, env: dict[str, Any], depth: int):
        gen = node.generators[0] if len(node.generators) == 1 else None
        if gen is None or gen.ifs or gen.is_async:
            return self.unknown(node)
        items = self.iterate(self._eval(gen.iter, module, env, depth))
        if items is UNKNOWN:
            return self.unknown(node)
        out = []
        for item in items:
            inner = dict(env)
            self.assign(gen.target, item, module, inner, depth)
            value = self._eval(node.elt, module, inner, depth)
            if self.STRICT and isinstance(value, Opaque):
                return UNKNOWN
            out.append(value)
        return out


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _arithmetic(op: ast.operator, left: Any, right: Any) -> Any:
    """``left op right`` for the operators constants are built with (UNKNOWN otherwise)."""
    numbers = isinstance(left, int | float) and isinstance(right, int | float)
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.BitOr) and isinstance(left, set | dict):
            return left | right
        if isinstance(op, ast.Sub) and isinstance(left, set | int | float):
            return left - right
        if isinstance(op, ast.Mult) and (
            numbers or isinstance(left, list | str) and isinstance(right, int)
        ):
            return left * right
        if numbers and isinstance(op, ast.LShift | ast.Pow) and isinstance(right, int):
            if 0 <= right < 64:
                return left << right if isinstance(op, ast.LShift) else left**right
    except TypeError:
        pass
    return UNKNOWN


_COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}
# expression node type -> the method that evaluates it
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
