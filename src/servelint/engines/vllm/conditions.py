"""Evaluate the profile's validator ``conditions`` (engines/vllm/builder/conditions.py) over
the values a launch gives a config class, without ``eval``: the test text is parsed with
``ast`` and walked over a closed set of nodes (literals, ``self.<field>`` chains, ``not``/
``and``/``or``, comparisons, arithmetic, conditional expressions, subscripts, and the calls
in ``SAFE_CALLS``/``SAFE_METHODS``). Anything else, or a value the argv does not decide
(``UNKNOWN``), makes the whole test undetermined: only a test that is certainly true is
a rejection.
"""

from __future__ import annotations

import ast
import operator
import re
from collections import deque
from typing import Any


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


class Items:
    """A list of ``n`` items whose values are not known (only its length and truth are)."""

    def __init__(self, n: int):
        self.n = n

    def __repr__(self) -> str:
        return f"Items({self.n})"


class Undetermined(Exception):
    """The test reads something the launch does not decide."""


class Values:
    """One config object as the launch builds it: field -> value, a nested ``Values``, or
    ``UNKNOWN``; ``given`` names the fields the launch itself sets."""

    def __init__(self, cls: str, fields: dict[str, Any], given: dict[str, Any] | None = None):
        self.cls, self.fields, self.given = cls, fields, given or {}

        self.names: dict[str, Any] = {}  # a comprehension's variables while it runs

    def get(self, name: str) -> Any:
        return self.fields.get(name, UNKNOWN)

    def binding(self, names: dict[str, Any]) -> Values:
        scoped = Values(self.cls, self.fields, self.given)
        scoped.names = {**self.names, **names}
        return scoped


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


def _compiled(text: str) -> Any:
    """The text's closure tree (condition_compile.py: evaluates as ``_eval`` walks it)."""
    from servelint.engines.vllm.condition_compile import compiled

    return compiled(text)


def holds(test: str, values: Values) -> bool | None:
    """True when the test certainly holds for ``values`` (or the engine certainly fails
    evaluating it), False when it certainly does not, None when the launch does not
    decide it."""
    found = outcome(test, values)
    return None if found is None else found != "passes"


# what evaluating a test over a launch's values may raise when the launch does not decide it
_UNDECIDED = (
    Undetermined,
    TypeError,
    ValueError,
    OverflowError,
    AttributeError,
    IndexError,
    KeyError,
    RecursionError,
)


def outcome(test: str, values: Values) -> str | None:
    """ "raises" (the test holds), "divides-by-zero" (Python fails evaluating it, as the
    engine would), "passes", or None when the launch does not decide it."""
    return _outcome_of(_compiled(test), values)


def check_outcome(check: dict[str, Any], values: Values) -> str | None:
    """``outcome`` of a profile check's ``test``; a test the builder split into the operands
    of its ``and`` (``and_parts``, builder/condition_index.py) is parsed one operand at a
    time, only as far as evaluating it goes."""
    parts = check.get("and_parts")
    if not parts:
        return outcome(check["test"], values)
    from servelint.engines.vllm.condition_compile import conjunction

    return _outcome_of(conjunction(check["test"], parts), values)


def _outcome_of(run: Any, values: Values) -> str | None:
    if run is None:
        return None
    try:
        return "raises" if _truth(run(values)) else "passes"
    except ZeroDivisionError:
        return "divides-by-zero"
    except _UNDECIDED:
        return None


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def rendered(message: str, values: Values) -> str:
    """The engine's message with each ``{expr}`` the launch decides printed as the f-string
    would print it; the others stay as written."""

    def one(match: re.Match[str]) -> str:
        run = _compiled(match.group(1))
        if run is None:
            return match.group(0)
        try:
            value = _plain(_known(run(values)))
        except (*_UNDECIDED, ZeroDivisionError):
            return match.group(0)
        return str(value)

    return _PLACEHOLDER.sub(one, message)


def value_of(expr: str, values: Values) -> Any:
    """The expression's value over ``values`` (a scalar or a container of scalars), or
    UNKNOWN when the launch does not decide it (or Python would fail evaluating it)."""
    run = _compiled(expr)
    if run is None:
        return UNKNOWN
    try:
        return _plain(_known(run(values)))
    except (*_UNDECIDED, ZeroDivisionError):
        return UNKNOWN


def reads(test: str) -> list[str]:
    """The top-level fields a test reads (``self.a.b`` -> ``a``), in order of appearance."""
    return list(_reads(test))


def check_reads(check: dict[str, Any], key: str = "test") -> list[str]:
    """``reads`` of a profile check's ``test`` (or a construction's computed argument's
    ``expr``), as the builder stored it (``reads``, builder/condition_index.py); computed
    for one written without it."""
    found = check.get("reads")
    return found if found is not None else list(_reads(check[key]))


def _reads(test: str) -> tuple[str, ...]:
    """``self.<field>`` reads in ``ast.walk``'s order (breadth first), walked by hand: a
    run's first meeting with a release's tests spent as long in ``ast.walk`` as in parsing."""
    node = _parsed(test)
    out: list[str] = []
    todo = deque([node] if node is not None else ())
    while todo:
        sub = todo.popleft()
        if isinstance(sub, ast.Attribute):
            value = sub.value
            if isinstance(value, ast.Name) and value.id == "self" and sub.attr not in out:
                out.append(sub.attr)
        for name in sub._fields:
            child = getattr(sub, name, None)
            if isinstance(child, ast.AST):
                todo.append(child)
            elif isinstance(child, list):
                todo.extend(c for c in child if isinstance(c, ast.AST))
    return tuple(out)


def _truth(value: Any) -> bool:
    if isinstance(value, Values):
        return True  # a config object is truthy
    if isinstance(value, Items):
        return value.n > 0
    if value is UNKNOWN:
        raise Undetermined
    return bool(value)


def _eval(node: ast.AST, values: Values) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id == "self":
            return values
        if node.id in values.names:
            return values.names[node.id]
        return {"True": True, "False": False, "None": None}.get(node.id, UNKNOWN)
    if isinstance(node, ast.ListComp):
        return _listcomp(node, values)
    if isinstance(node, ast.Attribute):
        return _attribute(node, values)
    if isinstance(node, ast.BoolOp):
        return _boolop(node, values)
    if isinstance(node, ast.UnaryOp):
        return _unary(node, values)
    if isinstance(node, ast.Compare):
        return _compare(node, values)
    if isinstance(node, ast.BinOp):
        return _binop(node, values)
    if isinstance(node, ast.IfExp):
        branch = node.body if _truth(_eval(node.test, values)) else node.orelse
        return _eval(branch, values)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = [_eval(e, values) for e in node.elts]
        if isinstance(node, ast.Set) or any(v is UNKNOWN for v in items):
            items = [_known(v) for v in items]  # undecided unless a comprehension reads it
        return set(items) if isinstance(node, ast.Set) else tuple(items)
    if isinstance(node, ast.Subscript):
        base = _known(_eval(node.value, values))
        return _known_scalar(base[_known(_eval(node.slice, values))])
    if isinstance(node, ast.Call):
        return _call(node, values)
    raise Undetermined


_MAX_ITEMS = 256


def _listcomp(node: ast.ListComp, values: Values) -> Any:
    """``[elt for a, b in ITEMS if …]`` over a known sequence; a result holding anything
    undecided is ``Items`` (its length known, not its items)."""
    if len(node.generators) != 1:
        raise Undetermined
    gen = node.generators[0]
    items = _known(_eval(gen.iter, values))
    if not isinstance(items, tuple | list) or len(items) > _MAX_ITEMS:
        raise Undetermined
    out: list[Any] = []
    for item in items:
        scope = values.binding(_bind(gen.target, item))
        if all(_truth(_eval(cond, scope)) for cond in gen.ifs):
            out.append(_eval(node.elt, scope))
    if any(v is UNKNOWN or isinstance(v, Values | Items) for v in out):
        return Items(len(out))
    return out


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


def _attribute(node: ast.Attribute, values: Values) -> Any:
    base = _eval(node.value, values)
    if isinstance(base, Values):
        return base.get(node.attr)
    raise Undetermined  # an attribute of a plain value (or of None: the engine fails there)


def _boolop(node: ast.BoolOp, values: Values) -> Any:
    """Python's short-circuit ``and``/``or``, where an undetermined operand that the
    result does not depend on is skipped."""
    unknown = False
    is_and = isinstance(node.op, ast.And)
    last: Any = None
    for operand in node.values:
        try:
            last = _eval(operand, values)
            truth = _truth(last)
        except Undetermined:
            unknown = True
            continue
        except ZeroDivisionError:
            if not unknown:
                raise  # Python evaluates this operand too: the engine fails here
            continue  # an earlier undecided operand may have ended the test first
        if truth is not is_and:  # False in `and`, True in `or`: decides the result
            return last
    if unknown:
        raise Undetermined
    return last


def _unary(node: ast.UnaryOp, values: Values) -> Any:
    if isinstance(node.op, ast.Not):
        return not _truth(_eval(node.operand, values))
    operand = _known(_eval(node.operand, values))
    if not isinstance(operand, int | float) or isinstance(operand, bool):
        raise Undetermined
    if isinstance(node.op, ast.USub):
        return -operand
    if isinstance(node.op, ast.UAdd):
        return operand
    raise Undetermined


def _compare(node: ast.Compare, values: Values) -> bool:
    left = _eval(node.left, values)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        right = _eval(right_node, values)
        if isinstance(op, ast.Is | ast.IsNot):
            result = _identity(left, right, isinstance(op, ast.Is))
        else:
            fn = _COMPARE.get(type(op))
            if fn is None:
                raise Undetermined
            result = fn(_plain(left), _plain(right))
        if not result:
            return False
        left = right
    return True


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


def _binop(node: ast.BinOp, values: Values) -> Any:
    fn = _ARITH.get(type(node.op))
    left, right = _known(_eval(node.left, values)), _known(_eval(node.right, values))
    if fn is None or not all(isinstance(v, _SCALARS) for v in (left, right)):
        raise Undetermined
    if isinstance(node.op, ast.Pow) and (not isinstance(right, int) or abs(right) > _MAX_POW):
        raise Undetermined
    return fn(left, right)


def _call(node: ast.Call, values: Values) -> Any:
    if node.keywords:
        raise Undetermined
    func = node.func
    if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2:
        return isinstance(_plain(_known(_eval(node.args[0], values))), _types(node.args[1]))
    if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
        sized = _eval(node.args[0], values)
        if isinstance(sized, Items):
            return sized.n
    args = [_known(_eval(a, values)) for a in node.args]
    if isinstance(func, ast.Name) and func.id in SAFE_CALLS:
        return SAFE_CALLS[func.id](*args)
    if isinstance(func, ast.Attribute):
        base = _known(_eval(func.value, values))
        allowed = SAFE_METHODS.get(type(base), set())
        if func.attr in allowed:
            return getattr(base, func.attr)(*args)
    raise Undetermined


def _types(node: ast.expr) -> tuple[type, ...]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    if not all(isinstance(n, ast.Name) and n.id in TYPE_NAMES for n in names):
        raise Undetermined
    return tuple(TYPE_NAMES[n.id] for n in names)  # type: ignore[union-attr]
