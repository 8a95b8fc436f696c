"""The statement walker of the ``conditions`` builder (engines/vllm/builder/conditions.py):
one validator method read in source order, each ``if COND: raise`` / ``assert COND`` turned
into a test over ``self.<field>`` chains (guards joined, locals substituted), kept only when
the check-time walker (engines/vllm/conditions.py) can evaluate it and no earlier statement
changed what it reads."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.vllm import model_split
from servelint.builders.vllm.after_hooks import AfterHooks
from servelint.builders.vllm.condition_calls import Callees
from servelint.builders.vllm.condition_record import _record
from servelint.builders.vllm.condition_shapes import _evaluable, _reads, exact_path, self_path
from servelint.builders.vllm.guarded import Assigned, Guarded, walrus_targets
from servelint.builders.vllm.model_split import ModelRoots
from servelint.builders.vllm.walk_exprs import (
    _negate,
    _resolve,
)

_MAX_DEPTH = 3
# call levels followed out of the class (condition_calls.py): the callee, and the ``cls.``
# methods a classmethod callee calls (KVConnectorFactory.supports_hma_config ->
# get_connector_class)
_MAX_CALLS = 2
_VALIDATOR_DECORATORS = ("model_validator", "field_validator")


@dataclass
class Walk:
    """State of one validator walk: local aliases, mutated fields, the class's methods."""

    path: str
    methods: dict[str, ast.FunctionDef]
    consts: dict[str, ast.expr]
    aliases: dict[str, ast.expr | None] = field(default_factory=dict)
    mutated: set[str] = field(default_factory=set)
    poisoned: bool = False  # self went to a function we do not read: nothing is known after
    method: str = ""
    out: list[dict[str, Any]] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    model: ModelRoots | None = None  # what reads the model object (model_split.py)
    model_names: set[str] = field(default_factory=set)  # locals holding the model object
    model_out: list[dict[str, Any]] = field(default_factory=list)  # the model checks
    guards: list[ast.expr] = field(default_factory=list)  # those of the current statement
    guarded: Guarded | None = None  # under which guards each changed path was assigned
    # past a call that hands ``self`` to code not read (a model's config hook), only model
    # checks are kept, each naming these calls (``assumes``); ``stopped``: nothing is kept
    hooks: list[str] = field(default_factory=list)
    stopped: bool = False
    objects: Callable[[str, str], ast.FunctionDef | None] | None = None  # object_calls.py

    def changed(self, path: str, value: ast.expr | None = None) -> None:
        if self.guarded is not None:  # before the path counts as changed: its guards do not
            self.guarded.note(path, self.guards, value)
        self.mutated.add(path)

    callees: Callees | None = None  # resolves calls to functions outside the class
    owner: ast.ClassDef | None = None  # the class of the classmethod being walked
    calls: int = 0  # call levels followed out of the class
    after: AfterHooks | None = None  # hooks met: the walk goes on past them (after_hooks.py)


def walk_method(
    path: str,
    methods: dict[str, ast.FunctionDef],
    consts: dict[str, ast.expr],
    method: ast.FunctionDef,
    value_field: str | None = None,
    seed: set[str] | None = None,
    poisoned: bool = False,
    model: ModelRoots | None = None,
    bounds: dict[str, list[Assigned]] | None = None,
    values: dict[str, list[Any]] | None = None,
    env: dict[str, Any] | None = None,
    objects: Callable[[str, str], ast.FunctionDef | None] | None = None,
    callees: Callees | None = None,
    after: AfterHooks | None = None,
) -> Walk:
    """``seed``: paths changed before the method runs, each under its ``bounds`` (guarded.py;
    a path without bounds: always changed)."""
    walk = Walk(
        path,
        methods,
        consts,
        mutated=set(seed or ()),
        poisoned=poisoned,
        method=method.name,
        model=model,
        stopped=poisoned,
        objects=objects,
        callees=callees.for_method(method) if callees is not None else None,
        after=after,
    )
    _walked(walk, method)
    walk.guarded = Guarded(_evaluable, _reads, walk.mutated, bounds, values, env)
    if after is not None:
        walk.guarded.unsure = after.unsure
    if value_field is not None and len(method.args.args) > 1:
        value = ast.Attribute(ast.Name("self", ast.Load()), value_field, ast.Load())
        walk.aliases[method.args.args[1].arg] = value
    _statements(walk, method.body, [], 0)
    return walk


def _returns(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Continue | ast.Break)


def _statements(walk: Walk, body: list[ast.stmt], guards: list[ast.expr], depth: int) -> bool:
    """Walk ``body`` under ``guards``; False once a ``return`` ends it."""
    guards = list(guards)
    for st in body:
        if walk.poisoned and (walk.stopped or walk.model is None):
            return False
        walk.guards = guards
        _follow(walk, st, guards, depth)
        if isinstance(st, ast.If):
            _bind_walrus(walk, st.test)  # `(x := E) is None and x …`: x is E in the test too
            test = _guard(walk, _resolve(walk, st.test))
            negated = _guard(walk, _negate(test))
            early = [
                _guard(walk, _negate(ast.BoolOp(ast.And(), [test, c])))
                for c in _leading_returns(walk, st.body)
            ]
            _statements(walk, st.body, guards + [test], depth)
            guards += early  # past `if A: (if B: return) …`, not (A and B)
            if st.orelse:
                _statements(walk, st.orelse, guards + [negated], depth)
            # past `if A: return`, A is false; past `if A: raise`, A may be left out: were it
            # true, the engine would already have refused the launch
            if _returns(st.body):
                guards.append(negated)
            if st.orelse and _returns(st.orelse):
                guards.append(test)
        elif isinstance(st, ast.Raise):
            _record(walk, guards, None, st)
            return False
        elif isinstance(st, ast.Assert):
            _bind_walrus(walk, st.test)
            _record(walk, guards, _negate(_resolve(walk, st.test)), st)
        elif isinstance(st, ast.Return):
            return False
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            _call(walk, st.value, guards, depth)
        elif isinstance(st, ast.Assign | ast.AnnAssign | ast.AugAssign):
            assign(walk, st)
        else:  # loops, try, with, match: not followed; what they change is unknown after
            taint(walk, st)
    return True


def _bind_walrus(walk: Walk, test: ast.expr) -> None:
    """The locals a test's ``(x := E)`` binds: E (resolved) where it certainly ran and the
    name is fresh, else unknown."""
    for name, value in walrus_targets(test):
        fresh = name not in walk.aliases
        walk.aliases[name] = _resolve(walk, value) if fresh and value is not None else None
        walk.model_names.discard(name)


def _guard(walk: Walk, test: ast.expr) -> ast.expr:
    """``test`` as a guard, its bound over the launch's values taken where it is tested."""
    return walk.guarded.at_guard(test) if walk.guarded is not None else test


def _call(walk: Walk, call: ast.Call, guards: list[ast.expr], depth: int) -> None:
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        target = walk.methods.get(func.attr)
        if target is None:
            _hand_off(walk, call, inherited=True)  # inherited: code not read
            return
        if depth >= _MAX_DEPTH or id(target) in walk.seen:
            walk.poisoned = walk.stopped = True  # a recursive method may change any field
            return
        walk.seen.add(id(target))
        _walked(walk, target)
        saved, saved_models, saved_path = dict(walk.aliases), walk.model_names, walk.path
        walk.aliases = {}
        walk.model_names = _model_params(walk, target, call)
        walk.path = getattr(target, "path", walk.path)  # a function read from another file
        _statements(walk, target.body, guards, depth + 1)
        walk.aliases, walk.model_names, walk.path = saved, saved_models, saved_path
        walk.seen.discard(id(target))
        return
    target = _object_method(walk, func)
    if target is not None and depth < _MAX_DEPTH and id(target) not in walk.seen:
        _follow_object(walk, target, call, guards, depth)
        return
    taint(walk, call)


def _leading_returns(walk: Walk, body: list[ast.stmt]) -> list[ast.expr]:
    """The tests of the ``if C: … return`` statements a block starts with (before anything
    else runs), as the walk reads them there."""
    out: list[ast.expr] = []
    for st in body:
        if not (isinstance(st, ast.If) and _returns(st.body) and not st.orelse):
            break
        out.append(_resolve(walk, st.test))
    return out


def _object_method(walk: Walk, func: ast.expr) -> ast.FunctionDef | None:
    """The method ``self.<field>.<name>(…)`` calls on a config object (object_calls.py)."""
    if walk.objects is None or not isinstance(func, ast.Attribute):
        return None
    holder = func.value
    if not (
        isinstance(holder, ast.Attribute)
        and isinstance(holder.value, ast.Name)
        and holder.value.id == "self"
    ):
        return None
    return walk.objects(holder.attr, func.attr)


def _follow_object(
    walk: Walk, target: ast.FunctionDef, call: ast.Call, guards: list[ast.expr], depth: int
) -> None:
    """Read the object's method in place, its parameters bound to the call's arguments."""
    params = [a.arg for a in target.args.args[1:]]
    if call.keywords or len(call.args) > len(params) or target.args.vararg:
        taint(walk, call)
        return
    walk.seen.add(id(target))
    models = _model_params(walk, target, call)
    bound = {
        p: _resolve(walk, a) for p, a in zip(params, call.args, strict=False) if p not in models
    }
    saved, saved_models, saved_path = dict(walk.aliases), walk.model_names, walk.path
    walk.aliases, walk.model_names = bound, models
    walk.path = getattr(target, "path", walk.path)
    _statements(walk, target.body, guards, depth + 1)
    walk.aliases, walk.model_names, walk.path = saved, saved_models, saved_path
    walk.seen.discard(id(target))


def _model_params(walk: Walk, target: ast.FunctionDef, call: ast.Call) -> set[str]:
    """The callee's parameters the caller passes the model object in (positionally)."""
    params = [a.arg for a in target.args.args[1:]]
    return {
        p
        for p, arg in zip(params, call.args, strict=False)
        if isinstance(arg, ast.Name) and arg.id in walk.model_names
    }


def _follow(walk: Walk, st: ast.stmt, guards: list[ast.expr], depth: int) -> None:
    """Walk the function or static/class method ``st`` calls first, whatever its result
    (condition_calls.py), with the guards ``st`` sits under; its raises are the caller's."""
    call = _first_call(st)
    if call is None or walk.callees is None or walk.calls >= _MAX_CALLS:
        return
    callee = walk.callees.resolve(call, walk.owner, walk.path)
    if callee is None:
        return
    saved = (walk.path, walk.consts, walk.aliases, walk.owner, walk.model_names)
    walk.path, walk.consts, walk.aliases, walk.owner = callee.path, {}, {}, callee.owner
    walk.model_names = set()
    walk.calls += 1
    _statements(walk, callee.body, guards, depth + 1)
    walk.calls -= 1
    walk.path, walk.consts, walk.aliases, walk.owner, walk.model_names = saved
    walk.guards = guards  # the caller's statement is still under its own guards


def _first_call(st: ast.stmt) -> ast.Call | None:
    """The call ``st`` makes before anything else: ``f(x)``, ``y = f(x)``, ``return f(x)``,
    ``if f(x):`` / ``if not f(x):``."""
    value: ast.expr | None = None
    if isinstance(st, ast.Expr | ast.Assign | ast.AnnAssign | ast.Return):
        value = st.value
    elif isinstance(st, ast.If):
        value = st.test
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            value = value.operand
    return value if isinstance(value, ast.Call) else None


def taint(walk: Walk, node: ast.AST) -> None:
    """Fields and locals ``node`` may change: assigned, mutated in place, or ``self`` passed on."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign | ast.AugAssign | ast.AnnAssign):
            assign(walk, sub)
        elif isinstance(sub, ast.For | ast.comprehension):
            for name in _bound_names(sub.target):
                walk.aliases[name] = None
        elif isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
            walk.aliases[sub.target.id] = None
        elif isinstance(sub, ast.Call):
            if _passes_self(sub):
                _hand_off(walk, sub)
            f = sub.func
            if not isinstance(f, ast.Attribute):
                continue
            path = self_path(f.value)
            if path:  # self.x.append(...)
                walk.changed(path)
            elif isinstance(f.value, ast.Name) and f.value.id == "self":  # self.method()
                _taint_method(walk, f.attr)
            elif isinstance(f.value, ast.Name):  # cfg.update(...)
                walk.aliases[f.value.id] = None


def assign(walk: Walk, st: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    plain = None if isinstance(st, ast.AugAssign) else st.value  # the value a target gets
    for target in targets:
        single = not isinstance(target, ast.Tuple | ast.List)
        for sub in [target] if single else target.elts:
            path = self_path(sub)
            if path:
                walk.changed(path, plain if single and path == exact_path(sub) else None)
        if isinstance(target, ast.Name):
            fresh = target.id not in walk.aliases and isinstance(st, ast.Assign | ast.AnnAssign)
            value = getattr(st, "value", None)
            was_model = target.id in walk.model_names
            walk.model_names.discard(target.id)
            if (fresh or was_model) and model_split.is_model_value(
                walk.model, _resolve(walk, value) if value is not None else None
            ):
                walk.model_names.add(target.id)  # the model object: kept as its own name
                walk.aliases[target.id] = ast.Name(target.id, ast.Load())
            else:
                walk.aliases[target.id] = _resolve(walk, value) if fresh and value else None
        elif isinstance(target, ast.Tuple | ast.List):
            for name in _bound_names(target):  # `(self.a, b) = …`: b, not self
                walk.aliases[name] = None
                walk.model_names.discard(name)
    value = getattr(st, "value", None)
    if value is not None:
        _taint_calls(walk, value)
        for sub in ast.walk(value):  # `y = (x := …)`: x is not followed
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                walk.aliases[sub.target.id] = None


def _bound_names(target: ast.expr) -> list[str]:
    """The local names an unpacking target binds (``a, (b, *c)``), not the ``self`` of a
    ``self.x`` element, which stays ``self``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _bound_names(elt)]
    return []


def _taint_calls(walk: Walk, node: ast.AST) -> None:
    """What the calls of an assigned value may change: ``self`` passed on poisons the walk,
    a ``self.<method>()`` changes what that method assigns."""
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        if _passes_self(sub):
            _hand_off(walk, sub)
        f = sub.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            _taint_method(walk, f.attr)


_READS_ONLY = frozenset({"isinstance", "type", "hasattr", "id"})  # builtins that change nothing


def _hand_off(walk: Walk, call: ast.Call, inherited: bool = False) -> None:
    """``self`` goes to code not read at ``call``: a config hook, or (``inherited``) a base
    class's method (_hand_off_at)."""
    _hand_off_at(walk, call.lineno, ast.unparse(call.func), inherited)


def _hand_off_at(walk: Walk, line: int, callee: str, inherited: bool = False) -> None:
    """``self`` goes to ``callee`` (code not read) at ``line`` (0: a method the class does not
    define). With a record of hooks (after_hooks.py) the walk goes on past it, each later
    check judged by what the wheel may write by name (write_index.py); else nothing the
    launch sets is known after it: only model checks are kept, naming the calls (none past
    an inherited method)."""
    walk.hooks.append(f"{walk.path}:{line or callee + '()'}")
    if walk.after is not None:
        walk.after.met(f"{walk.path}:{line} {callee}")
    else:
        walk.poisoned = True
        walk.stopped = walk.stopped or inherited


def _passes_self(call: ast.Call) -> bool:
    """``self`` goes to code that may change it (not ``isinstance(self, …)``)."""
    if isinstance(call.func, ast.Name) and call.func.id in _READS_ONLY:
        return False
    values = [*call.args, *(k.value for k in call.keywords)]
    return any(isinstance(a, ast.Name) and a.id == "self" for a in values)


def _walked(walk: Walk, method: ast.FunctionDef) -> None:
    """The walk reads (or taints) ``method``: the writes in it are the walk's own."""
    if walk.after is not None:
        walk.after.walked.add(f"{walk.after.cls}.{method.name}")


def _taint_method(walk: Walk, name: str) -> None:
    """A ``self.<name>()`` call that is not followed: what the method may change."""
    method = walk.methods.get(name)
    if method is None:
        _hand_off_at(walk, 0, f"self.{name}", inherited=True)
        return  # inherited or unknown: code not read
    if id(method) in walk.seen:
        return  # already being read: what it changes is counted there
    # the methods it calls in turn are read the same way (each once per chain)
    inner = Walk("", walk.methods, {}, seen=walk.seen | {id(method)}, after=walk.after)
    inner.path = walk.path
    _walked(walk, method)
    taint(inner, method)
    for changed in sorted(inner.mutated):
        walk.changed(changed)
    if inner.poisoned:
        walk.poisoned = walk.stopped = True
