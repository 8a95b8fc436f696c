"""The ``conditions`` profile section: the ``raise`` and ``assert`` statements of a config
class's validators whose condition the argv alone decides.

For each config class (and ``EngineArgs`` itself, whose fields are the option dests) the
validators are read in source order: ``__post_init__``, pydantic ``model_validator(mode=
"after")`` and ``field_validator`` methods (the validated value is the field), and the
``self.<method>()`` calls they make. Each ``if COND: raise X(msg)`` / ``assert COND, msg``
becomes one entry whose ``test`` (Python expression text, evaluated at check time by the
safe walker in ``engines/vllm/conditions.py``) is the statement's condition joined with the
guards it sits under (enclosing ``if`` tests, earlier ``if …: return``/``raise`` blocks),
after local names are replaced by what they were assigned. An entry is kept only when its
test reads nothing but ``self.<field>`` chains, literals and the few pure built-ins the
walker knows; a field the code assigns (or passes ``self`` to a function) before the
statement is no longer the launch's value, so a test reading it is dropped. Fields a
before/wrap/plain validator (or an after validator that returns something else) converts
are listed as ``converted``: their value is not the argv's.

How the engine fills each class (``built``): ``EngineArgs.create_engine_config`` calls
``Cls(field=self.dest, …)``; per field the dest it passes (``None``: anything else), and
whether the call has ``**kwargs`` (every other field then unknown) or sits under an ``if``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.vllm import dict_built, object_calls, v1_fallback
from servelint.builders.vllm.after_hooks import AfterHooks
from servelint.builders.vllm.condition_calls import Callees
from servelint.builders.vllm.condition_walk import Walk, taint, walk_method
from servelint.builders.vllm.engine_build import (
    constructions,
    engine_args_assigned,
    field_defaults,
    namespace_assigned,
)
from servelint.builders.vllm.facts_common import (
    find_def,
    literal_values,
    module_literals,
    parse,
    pydantic_validators,
)
from servelint.builders.vllm.model_split import roots_for
from servelint.builders.vllm.walk_exprs import get_args_key
from servelint.builders.wheel import WheelSource


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    configs = profile.get("configs", {})
    out: dict[str, Any] = {}
    for cls in sorted(configs):
        entry = class_conditions(src, cls, profile=profile)
        if entry:
            out[cls] = entry
    # the entrypoints change some dests before create_engine_config reads them
    entry_changed = namespace_assigned(src)
    engine_args = class_conditions(
        src,
        "EngineArgs",
        prefer="engine/arg_utils",
        extra=("create_engine_config",),
        profile=profile,
        changed_before=entry_changed,
    )
    fallback = v1_fallback.checks(src)  # a V0 fallback where no V0 is left fails the launch
    if engine_args and fallback:
        engine_args["checks"] = engine_args.get("checks", []) + fallback
    if engine_args:
        out["EngineArgs"] = engine_args
        found = find_def(src, "EngineArgs", "engine/arg_utils")
        if found is not None and isinstance(found[1], ast.ClassDef):
            changed = set(engine_args_assigned(found[1])) | entry_changed
            engine_args["assigned"] = sorted(changed)
    built = constructions(src, set(configs))
    for cls, how in built.items():
        if cls in out:
            out[cls]["built"] = how
    with_checks = {cls for cls, entry in out.items() if entry.get("checks")}
    for cls, how in dict_built.extract(src, with_checks - {"EngineArgs"}).items():
        if how["dest"] not in entry_changed:  # an entrypoint may set the dict: not the launch's
            out[cls]["from_dict"] = how
    return {"conditions": out}


def class_conditions(
    src: WheelSource,
    cls: str,
    prefer: str = "vllm/config",
    extra: tuple[str, ...] = (),
    profile: dict[str, Any] | None = None,
    changed_before: set[str] | None = None,
) -> dict[str, Any] | None:
    """``changed_before``: fields other code changes before the first method runs (``*``:
    any field)."""
    found = find_def(src, cls, prefer)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    path, node = found
    tree = parse(src, path)
    methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
    consts = module_literals(tree) if tree is not None else {}
    if tree is not None:
        consts.update(literal_alias_args(src, tree, path))
    kinds = {name: _validator_kind(m) for name, m in methods.items()}
    callees = Callees(src, tree, path)
    if any(kind == "before-model" for kind, _ in kinds.values()):
        return None  # a before model validator may rewrite any field
    converted = {
        f
        for name, (kind, fields) in kinds.items()
        for f in fields
        if kind == "convert" or kind == "field" and not _returns_param(methods[name])
    }
    seed: set[str] = set(changed_before or ())
    if "*" in seed:
        return None
    acc = _Found(seed=seed)
    env = ((profile or {}).get("env") or {}).get("registry") or {}
    objects = object_calls.resolver(src, profile or {}, cls)  # self.<field>.<method>(…)
    configs = (profile or {}).get("configs") or {}
    after = AfterHooks(src, cls, configs) if cls in configs else None
    model = roots_for(profile or {}, cls, methods)
    ctx = (path, methods, consts, model, env, objects, callees, after)
    # pydantic runs field validators, then __post_init__, then the after model validators:
    # a model validator sees what __post_init__ (or another model validator) assigned
    for name in ("__post_init__", *extra):  # each sees what the ones before it assigned
        if name in methods:
            _walk_post(acc, ctx, methods[name])
    models = [m for n, m in methods.items() if kinds[n][0] == "model"]
    assigned = {m.name: _assigned(m) for m in models}
    for method in models:
        others = {f for name, fs in assigned.items() if name != method.name for f in fs}
        _walk_model(acc, ctx, method, others)
    for name, (kind, fields) in kinds.items():
        if kind == "field" and name not in converted:
            for fname in fields:
                if fname not in converted:
                    acc.checks += walk_method(
                        path, methods, consts, methods[name], fname, callees=callees
                    ).out
    hooked = after is not None and bool(after.sites)  # a hook may have changed any field
    if not (acc.checks or acc.model_checks or converted or acc.changes or acc.opaque or hooked):
        return None
    out: dict[str, Any] = {
        "checks": _unique(acc.checks),
        "converted": sorted(converted),
        "changes": sorted({c.split(".")[0] for c in acc.changes}),
        "defaults": field_defaults(src, node, path),
    }
    if acc.model_checks:
        out["model_checks"] = _unique(acc.model_checks)  # LAUNCH and MODEL (model_split.py)
    if acc.opaque or hooked:
        out["opaque"] = True  # self goes to code not read: any field may change
    return out


@dataclass
class _Found:
    """What the validator walks of one class found, and what they changed so far."""

    seed: set[str]  # paths changed before the next __post_init__-phase method
    bounds: dict[str, list[Any]] = field(default_factory=dict)  # guarded.py, per path
    values: dict[str, list[Any]] = field(default_factory=dict)  # assigned_values.py, per path
    checks: list[dict[str, Any]] = field(default_factory=list)
    model_checks: list[dict[str, Any]] = field(default_factory=list)
    changes: set[str] = field(default_factory=set)
    opaque: bool = False  # a walk stopped: nothing is known after it

    def add(self, walk: Walk) -> None:
        self.checks += walk.out
        self.model_checks += walk.model_out
        self.changes |= walk.mutated
        self.opaque |= walk.poisoned


def _walk_post(acc: _Found, ctx: tuple, method: ast.FunctionDef) -> None:
    """``__post_init__`` (or ``create_engine_config``): its checks, and what it assigns
    under which guards for the methods after it."""
    walk = _walk(acc, ctx, method, acc.seed, _bounds_for(acc.seed, acc.bounds))
    acc.seed |= walk.mutated
    if walk.guarded is not None:  # (it starts from the bounds it was given)
        acc.bounds = {k: list(v) for k, v in walk.guarded.bounds.items()}
        acc.values = {k: list(v) for k, v in walk.guarded.values.items()}


def _walk_model(acc: _Found, ctx: tuple, method: ast.FunctionDef, others: set[str]) -> None:
    """An after model validator: it sees what __post_init__ and the other model validators
    (``others``, assigned in any order) changed."""
    changed = acc.seed | others
    _walk(acc, ctx, method, changed, _bounds_for(changed, acc.bounds, others))


def _walk(
    acc: _Found, ctx: tuple, method: ast.FunctionDef, seed: set[str], bounds: dict[str, list[Any]]
) -> Walk:
    path, methods, consts, model, env, objects, callees, after = ctx
    walk = walk_method(
        path,
        methods,
        consts,
        method,
        seed=seed,
        poisoned=acc.opaque,
        model=model,
        bounds=bounds,
        values=acc.values,
        env=env,
        objects=objects,
        callees=callees,
        after=after,
    )
    acc.add(walk)
    return walk


def _bounds_for(
    changed: set[str], bounds: dict[str, list[Any]], always: set[str] = frozenset()
) -> dict[str, list[Any]]:
    """The guarded.py bounds a walk starts from: a changed path without a noted assignment
    (the entrypoint's, or one not noted) and each path in ``always`` gain an unconditional
    one, so a later guarded assignment of it never makes it look unchanged."""
    out = {k: list(v) for k, v in bounds.items()}
    for path in changed:
        if path in always or not out.get(path):
            out.setdefault(path, []).append((None, None))
    return out


def _unique(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    checks = sorted(checks, key=lambda c: (int(c["source"].rsplit(":", 1)[1]), c["test"]))
    return list({(c["source"], c["test"]): c for c in checks}.values())


def _assigned(method: ast.FunctionDef) -> set[str]:
    walk = Walk("", {}, {})
    taint(walk, method)
    return walk.mutated


def _validator_kind(method: ast.FunctionDef) -> tuple[str, list[str]]:
    """("model" | "field" | "convert" | "before-model" | "", fields) of a pydantic validator."""
    for name, mode, fields in pydantic_validators(method):
        if name == "model_validator":
            return ("model", []) if mode == "after" else ("before-model", [])
        return ("field" if mode == "after" else "convert"), fields
    return "", []


def _returns_param(method: ast.FunctionDef) -> bool:
    """Every ``return`` of a field validator gives back its value parameter unchanged."""
    args = method.args.args
    param = args[1].arg if len(args) > 1 else None
    if not param:
        return False
    none_returns = {
        id(st)
        for node in ast.walk(method)
        if isinstance(node, ast.If) and ast.unparse(node.test) == f"{param} is None"
        for st in node.body
        if isinstance(st, ast.Return)
        and isinstance(st.value, ast.Constant)
        and st.value.value is None
    }  # `if value is None: return None`
    return all(
        isinstance(r.value, ast.Name) and r.value.id == param or id(r) in none_returns
        for r in ast.walk(method)
        if isinstance(r, ast.Return)
    )


def literal_alias_args(src: WheelSource, tree: ast.Module, path: str) -> dict[str, ast.expr]:
    """``get_args(Alias)`` -> the tuple of strings a ``Literal[…]`` alias holds (aliases in it
    followed, facts_common.literal_values), keyed by the call's text, for each such call in
    the module: ``self.method in get_args(MTPModelTypes)`` (vllm/config/speculative.py) is
    then a test over literals (walk_exprs substitutes it)."""
    out: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        key = get_args_key(node)
        if key is None or key in out:
            continue
        values = literal_values(src, node.args[0], path)  # type: ignore[attr-defined]
        if values:  # each value once, first place kept: Literal[…] dedups its args
            unique = list(dict.fromkeys(values))
            out[key] = ast.Tuple([ast.Constant(v) for v in unique], ast.Load())
    return out
