"""What ``EngineArgs.create_engine_config`` passes to a config class when the argument is
not a plain ``self.<dest>``: a local or a changed dest computed from the launch's dests
(``data_parallel_external_lb = self.data_parallel_external_lb or self.data_parallel_rank is
not None``, then ``ParallelConfig(data_parallel_external_lb=data_parallel_external_lb)``).

The method's top-level statements are read in order, tracking per local name and per
changed dest the expression over the *original* dests it holds (``None``: not known). An
``if`` is followed down both branches and the two states joined: a name assigned
differently becomes ``A if TEST else B``; a branch that ends in ``raise``/``return`` does
not reach the statements after it. Loops, ``try``, ``with`` and calls that may change
``self`` make what they touch unknown; ``self`` passed to code not read makes everything
unknown. An argument is recorded only when its expression is one the check-time walker
(engines/vllm/conditions.py) evaluates.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from servelint.builders.vllm.condition_shapes import SAFE_CALLS, evaluable, self_path
from servelint.builders.vllm.condition_walk import Walk, taint

_MAX_TEXT = 8000  # a longer joined expression is dropped, not recorded


@dataclass
class _State:
    names: dict[str, ast.expr | None] = field(default_factory=dict)
    fields: dict[str, ast.expr | None] = field(default_factory=dict)  # changed dests
    lost: bool = False  # self went to code not read: no dest is known any more

    def copy(self) -> _State:
        return _State(dict(self.names), dict(self.fields), self.lost)


def passed_values(
    method: ast.FunctionDef,
    methods: dict[str, ast.FunctionDef],
    classes: set[str],
    changed_before: set[str],
) -> dict[tuple[str, int], dict[str, str]]:
    """(class, line) -> {field: expression text} for each config-class call among the
    method's top-level statements, for the keywords that are not a plain ``self.<dest>``
    and whose value is known."""
    state = _State(fields=dict.fromkeys(changed_before), lost="*" in changed_before)
    out: dict[tuple[str, int], dict[str, str]] = {}
    _body(method.body, state, methods, classes, out)
    return out


def _body(
    body: list[ast.stmt],
    state: _State,
    methods: dict[str, ast.FunctionDef],
    classes: set[str],
    out: dict[tuple[str, int], dict[str, str]] | None,
) -> bool:
    """Run ``body`` on ``state`` (changed in place); False when it ends in raise/return."""
    for st in body:
        if out is not None:
            _record_calls(st, state, classes, out)
        if isinstance(st, ast.If):
            _calls(st.test, state, methods)
            test = _resolve(st.test, state)
            then, other = state.copy(), state.copy()
            alive_then = _body(st.body, then, methods, classes, None)
            alive_other = _body(st.orelse, other, methods, classes, None)
            if not (alive_then or alive_other):
                return False
            joined = (
                _join(test, then, other)
                if alive_then and alive_other
                else (then if alive_then else other)
            )
            state.names, state.fields, state.lost = joined.names, joined.fields, joined.lost
        elif isinstance(st, ast.Raise | ast.Return):
            return False
        elif isinstance(st, ast.Assign | ast.AnnAssign) and st.value is not None:
            _calls(st.value, state, methods)
            value = _resolve(st.value, state)
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            for target in targets:
                _bind(target, value if len(targets) == 1 else None, state)
        elif isinstance(st, ast.Expr):
            _calls(st.value, state, methods)
        elif not isinstance(st, ast.Assert | ast.Pass):
            _unknown_after(st, state, methods)
    return True


def _bind(target: ast.expr, value: ast.expr | None, state: _State) -> None:
    if isinstance(target, ast.Name):
        state.names[target.id] = value
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        if target.value.id == "self":
            state.fields[target.attr] = value
    elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
        for sub in target.elts if not isinstance(target, ast.Starred) else [target.value]:
            _bind(sub, None, state)
    else:
        path = self_path(target)
        if path:
            state.fields[path.split(".")[0]] = None  # self.x.y = …, self.x[i] = …


def _calls(node: ast.AST, state: _State, methods: dict[str, ast.FunctionDef]) -> None:
    """What the calls in an expression may change (the shared taint rules of the walker)."""
    walk = Walk("", methods, {})
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            taint(walk, sub)
    _lose(walk, state)


def _unknown_after(st: ast.stmt, state: _State, methods: dict[str, ast.FunctionDef]) -> None:
    """A statement not followed (loop, try, with, import, …): what it may bind or change."""
    walk = Walk("", methods, {})
    taint(walk, st)
    for sub in ast.walk(st):
        if isinstance(sub, ast.Import | ast.ImportFrom):
            for alias in sub.names:
                state.names[(alias.asname or alias.name).split(".")[0]] = None
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            state.names[sub.id] = None
        elif isinstance(sub, ast.withitem | ast.ExceptHandler):
            name = getattr(sub, "name", None)
            if isinstance(name, str):
                state.names[name] = None
    _lose(walk, state)


def _lose(walk: Walk, state: _State) -> None:
    for name, value in walk.aliases.items():
        # a call on a free name (`envs.validate_environ(…)`) rebinds no local; a free name
        # is unknown at check time anyway
        if value is None and name in state.names:
            state.names[name] = None
    for path in walk.mutated:
        state.fields[path.split(".")[0]] = None
    state.lost |= walk.poisoned


def _join(test: ast.expr, then: _State, other: _State) -> _State:
    out = _State(lost=then.lost or other.lost)
    for name in then.names.keys() | other.names.keys():
        a, b = then.names.get(name), other.names.get(name)
        bound_both = name in then.names and name in other.names
        out.names[name] = _either(test, a, b) if bound_both else None
    for name in then.fields.keys() | other.fields.keys():
        a = then.fields[name] if name in then.fields else _dest(name)
        b = other.fields[name] if name in other.fields else _dest(name)
        out.fields[name] = _either(test, a, b)
    return out


def _either(test: ast.expr, a: ast.expr | None, b: ast.expr | None) -> ast.expr | None:
    if a is None or b is None:
        return None
    if ast.dump(a) == ast.dump(b):
        return a
    joined = ast.IfExp(test, a, b)
    return joined if len(ast.unparse(joined)) <= _MAX_TEXT else None


def _dest(name: str) -> ast.expr:
    return ast.Attribute(ast.Name("self", ast.Load()), name, ast.Load())


class _Substitute(ast.NodeTransformer):
    """Locals and changed dests replaced by what they hold (``?`` where it is unknown)."""

    def __init__(self, state: _State):
        self.state = state

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.state.names:
            return _held(self.state.names[node.id])
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if self.state.lost:
                return ast.Name("?", ast.Load())
            if node.attr in self.state.fields:
                return _held(self.state.fields[node.attr])
            return node
        self.generic_visit(node)
        return node


def _held(value: ast.expr | None) -> ast.expr:
    return copy.deepcopy(value) if value is not None else ast.Name("?", ast.Load())


def _resolve(node: ast.expr, state: _State) -> ast.expr:
    return _Substitute(state).visit(copy.deepcopy(node))


def _record_calls(
    st: ast.stmt,
    state: _State,
    classes: set[str],
    out: dict[tuple[str, int], dict[str, str]],
) -> None:
    for sub in ast.walk(st):
        if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Name | ast.Attribute):
            continue
        cls = sub.func.id if isinstance(sub.func, ast.Name) else sub.func.attr
        if cls not in classes:
            continue
        found: dict[str, str] = {}
        for kw in sub.keywords:
            if kw.arg is None or isinstance(kw.value, ast.Call):
                continue
            if _plain_dest(kw.value) and kw.value.attr not in state.fields:  # type: ignore[attr-defined]
                continue  # an unchanged dest: the construction names it
            value = _resolve(kw.value, state)
            if _known_shape(value):
                found[kw.arg] = ast.unparse(value)
        if found:
            out[(cls, sub.lineno)] = found


def _known_shape(value: ast.expr) -> bool:
    """The check-time walker evaluates it: no unknown local (``?``), and evaluable once each
    free name (a parameter such as ``headless``, a module such as ``envs``; UNKNOWN at
    check time) is read as a field."""
    if any(isinstance(n, ast.Name) and n.id == "?" for n in ast.walk(value)):
        return False
    return evaluable(_FreeNames().visit(copy.deepcopy(value)))


class _FreeNames(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in ("self", "True", "False", "None") or node.id in SAFE_CALLS:
            return node
        return ast.Attribute(ast.Name("self", ast.Load()), node.id, ast.Load())


def _plain_dest(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )
