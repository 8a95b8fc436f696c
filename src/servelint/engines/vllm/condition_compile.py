"""The one evaluator of vLLM validator conditions: each condition text compiled once into a
tree of closures, one per AST node, over the nodes ``conditions`` allows (literals,
``self.<field>`` chains, ``not``/``and``/``or``, comparisons, arithmetic, conditional
expressions, subscripts, comprehensions, the calls in ``SAFE_CALLS``/``SAFE_METHODS``); any
other node makes the test undetermined. Python's order of evaluation is kept, so the
exception Python would raise first is the one raised.

Nothing is ``eval``-ed or ``exec``-ed: a closure holds only the node's own data (a constant,
a name, an operator function from ``condition_terms``) and its children's closures.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from servelint.engines.vllm import condition_terms as c
from servelint.profiles import Profile

Compiled = Callable[[c.Values], Any]


class Closures(dict[str, "Compiled | None"]):
    """One release's condition texts compiled, each when an evaluation first meets it: the
    closure of a text, or None when it does not parse. Kept with the profile
    (``closures_of``), so it holds only that profile's own texts (its tests, their ``and``
    operands, the ``{expr}`` of its messages, its computed arguments) and goes with it.
    Compiling them anew per evaluation costs ~2 s of CPU on ../shared/corpus/vllm-recipes."""

    def __missing__(self, text: str) -> Compiled | None:
        found = self[text] = compiled(text)
        return found


def closures_of(profile: Profile) -> Closures:
    """The release's ``Closures`` (``Profile.derived``)."""
    return profile.derived("vllm.condition_compile closures", lambda _: Closures())


def compiled(text: str) -> Compiled | None:
    """The closure evaluating ``text`` (None when it does not parse); check-time callers
    take it from the release's ``Closures``."""
    node = c._parsed(text)
    if node is None:
        return None
    try:
        return _compile(node)
    except RecursionError:  # nested too deep to compile: as deep to evaluate
        return _too_deep


def _compile(node: ast.AST) -> Compiled:
    make = _MAKERS.get(type(node))
    return _undetermined if make is None else make(node)


def _undetermined(values: c.Values) -> Any:
    raise c.Undetermined


def _too_deep(values: c.Values) -> Any:
    raise RecursionError


def _constant(node: ast.Constant) -> Compiled:
    value = node.value
    return lambda values: value


def _name(node: ast.Name) -> Compiled:
    name = node.id
    if name == "self":
        return lambda values: values
    fixed = {"True": True, "False": False, "None": None}.get(name, c.UNKNOWN)

    def run(values: c.Values) -> Any:
        names = values.names
        return names[name] if name in names else fixed

    return run


def _listcomp(node: ast.ListComp) -> Compiled:
    if len(node.generators) != 1:
        return _undetermined
    gen = node.generators[0]
    items_of, elt = _compile(gen.iter), _compile(node.elt)
    ifs = [_compile(cond) for cond in gen.ifs]
    target = gen.target

    def run(values: c.Values) -> Any:
        items = c._known(items_of(values))
        if not isinstance(items, tuple | list) or len(items) > c._MAX_ITEMS:
            raise c.Undetermined
        out: list[Any] = []
        for item in items:
            scope = values.binding(c._bind(target, item))
            if all(c._truth(cond(scope)) for cond in ifs):
                out.append(elt(scope))
        if any(v is c.UNKNOWN or isinstance(v, c.Values | c.Items) for v in out):
            return c.Items(len(out))
        return out

    return run


def _attribute(node: ast.Attribute) -> Compiled:
    base_of, attr = _compile(node.value), node.attr

    def run(values: c.Values) -> Any:
        base = base_of(values)
        if isinstance(base, c.Values):
            return base.get(attr)
        raise c.Undetermined

    return run


def _boolop(node: ast.BoolOp) -> Compiled:
    operands = [_compile(v) for v in node.values]
    return _boolop_run(operands.__getitem__, len(operands), isinstance(node.op, ast.And))


def conjunction(text: str, parts: list[list[int]], closures: Closures) -> Compiled | None:
    """The closure of ``text``, the ``and`` of the operands at ``parts`` (character spans,
    builder/condition_index.py): each operand is parsed and compiled when an evaluation first
    reaches it, so a test decided by its first operands never parses the rest. Evaluates as
    ``compiled(text)`` does: the builder keeps only splits whose operands parse alone to the
    same nodes, and nested ``and``s flattened evaluate as the nested ones. ``closures``: where
    the operands' and the text's closures are taken from."""
    return _lazy_and(text, parts, closures)


class _Unsplit(Exception):
    """An operand of a split test that does not parse alone (not a split the builder keeps)."""


def _lazy_and(text: str, parts: list[list[int]], closures: Closures) -> Compiled:
    texts = [text[start:end] for start, end in parts]
    done: list[Compiled | None] = [None] * len(texts)

    def operand(i: int) -> Compiled:
        found = done[i]
        if found is None:
            found = done[i] = closures[texts[i]]
            if found is None:
                raise _Unsplit
        return found

    split = _boolop_run(operand, len(texts), True)

    def run(values: c.Values) -> Any:
        try:
            return split(values)
        except _Unsplit:  # the whole text, as compiled() evaluates it
            whole = closures[text]
            if whole is None:
                raise c.Undetermined from None
            return whole(values)

    return run


def _boolop_run(operand: Callable[[int], Compiled], count: int, is_and: bool) -> Compiled:
    def run(values: c.Values) -> Any:
        unknown = False
        last: Any = None
        for i in range(count):
            try:
                last = operand(i)(values)
                truth = c._truth(last)
            except c.Undetermined:
                unknown = True
                continue
            except ZeroDivisionError:
                if not unknown:
                    raise
                continue
            if truth is not is_and:
                return last
        if unknown:
            raise c.Undetermined
        return last

    return run


def _unary(node: ast.UnaryOp) -> Compiled:
    operand_of = _compile(node.operand)
    if isinstance(node.op, ast.Not):
        return lambda values: not c._truth(operand_of(values))
    op = type(node.op)

    def run(values: c.Values) -> Any:
        operand = c._known(operand_of(values))
        if not isinstance(operand, int | float) or isinstance(operand, bool):
            raise c.Undetermined
        if op is ast.USub:
            return -operand
        if op is ast.UAdd:
            return operand
        raise c.Undetermined

    return run


def _compare(node: ast.Compare) -> Compiled:
    left_of = _compile(node.left)
    steps = [
        (
            _compile(right),
            isinstance(op, ast.Is | ast.IsNot),
            isinstance(op, ast.Is),
            c._COMPARE.get(type(op)),
        )
        for op, right in zip(node.ops, node.comparators, strict=True)
    ]

    def run(values: c.Values) -> bool:
        left = left_of(values)
        for right_of, identity, is_, fn in steps:
            right = right_of(values)
            if identity:
                result = c._identity(left, right, is_)
            else:
                if fn is None:
                    raise c.Undetermined
                result = fn(c._plain(left), c._plain(right))
            if not result:
                return False
            left = right
        return True

    return run


def _binop(node: ast.BinOp) -> Compiled:
    fn = c._ARITH.get(type(node.op))
    left_of, right_of = _compile(node.left), _compile(node.right)
    is_pow = isinstance(node.op, ast.Pow)

    def run(values: c.Values) -> Any:
        left, right = c._known(left_of(values)), c._known(right_of(values))
        if fn is None or not all(isinstance(v, c._SCALARS) for v in (left, right)):
            raise c.Undetermined
        if is_pow and (not isinstance(right, int) or abs(right) > c._MAX_POW):
            raise c.Undetermined
        return fn(left, right)

    return run


def _ifexp(node: ast.IfExp) -> Compiled:
    test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
    return lambda values: body(values) if c._truth(test(values)) else orelse(values)


def _items(node: ast.Tuple | ast.List | ast.Set) -> Compiled:
    elts = [_compile(e) for e in node.elts]
    is_set = isinstance(node, ast.Set)

    def run(values: c.Values) -> Any:
        items = [e(values) for e in elts]
        if is_set or any(v is c.UNKNOWN for v in items):
            items = [c._known(v) for v in items]
        return set(items) if is_set else tuple(items)

    return run


def _subscript(node: ast.Subscript) -> Compiled:
    base_of, key_of = _compile(node.value), _compile(node.slice)

    def run(values: c.Values) -> Any:
        base = c._known(base_of(values))
        return c._known_scalar(base[c._known(key_of(values))])

    return run


def _call(node: ast.Call) -> Compiled:
    if node.keywords:
        return _undetermined
    func = node.func
    if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2:
        return _isinstance(node.args[0], node.args[1])
    args_of = [_compile(a) for a in node.args]
    sized = isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1
    call = c.SAFE_CALLS.get(func.id) if isinstance(func, ast.Name) else None
    method = func.attr if isinstance(func, ast.Attribute) else None
    base_of = _compile(func.value) if isinstance(func, ast.Attribute) else None

    def run(values: c.Values) -> Any:
        if sized:
            found = args_of[0](values)
            if isinstance(found, c.Items):
                return found.n
        args = [c._known(a(values)) for a in args_of]
        if call is not None:
            return call(*args)
        if base_of is not None:
            base = c._known(base_of(values))
            if method in c.SAFE_METHODS.get(type(base), set()):
                return getattr(base, method)(*args)
        raise c.Undetermined

    return run


def _isinstance(value: ast.expr, types: ast.expr) -> Compiled:
    """``isinstance(x, T)`` with ``T`` built-in types (``TYPE_NAMES``): ``x`` first, then
    ``T`` (Python's order: ``x`` may fail before a type the evaluator does not allow)."""
    value_of = _compile(value)
    try:
        allowed: tuple[type, ...] | None = c._types(types)
    except c.Undetermined:
        allowed = None

    def run(values: c.Values) -> Any:
        found = c._plain(c._known(value_of(values)))
        if allowed is None:
            raise c.Undetermined
        return isinstance(found, allowed)

    return run


_MAKERS: dict[type, Callable[[Any], Compiled]] = {
    ast.Constant: _constant,
    ast.Name: _name,
    ast.ListComp: _listcomp,
    ast.Attribute: _attribute,
    ast.BoolOp: _boolop,
    ast.UnaryOp: _unary,
    ast.Compare: _compare,
    ast.BinOp: _binop,
    ast.IfExp: _ifexp,
    ast.Tuple: _items,
    ast.List: _items,
    ast.Set: _items,
    ast.Subscript: _subscript,
    ast.Call: _call,
}
