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
from typing import Any

from servelint.engines._build.wheel import WheelSource
from servelint.engines.vllm.builder import dict_built
from servelint.engines.vllm.builder.condition_walk import Walk, taint, walk_method
from servelint.engines.vllm.builder.engine_build import (
    constructions,
    engine_args_assigned,
    field_defaults,
    namespace_assigned,
)
from servelint.engines.vllm.builder.facts_common import find_def, parse, pydantic_validators


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    configs = profile.get("configs", {})
    out: dict[str, Any] = {}
    for cls in sorted(configs):
        entry = class_conditions(src, cls)
        if entry:
            out[cls] = entry
    engine_args = class_conditions(
        src, "EngineArgs", prefer="engine/arg_utils", extra=("create_engine_config",)
    )
    namespace = namespace_assigned(src)
    if engine_args:
        out["EngineArgs"] = engine_args
        found = find_def(src, "EngineArgs", "engine/arg_utils")
        if found is not None and isinstance(found[1], ast.ClassDef):
            changed = set(engine_args_assigned(found[1])) | namespace
            engine_args["assigned"] = sorted(changed)
    built = constructions(src, set(configs))
    for cls, how in built.items():
        if cls in out:
            out[cls]["built"] = how
    with_checks = {cls for cls, entry in out.items() if entry.get("checks")}
    for cls, how in dict_built.extract(src, with_checks - {"EngineArgs"}).items():
        if how["dest"] not in namespace:  # an entrypoint may set the dict: not the launch's
            out[cls]["from_dict"] = how
    return {"conditions": out}


def class_conditions(
    src: WheelSource, cls: str, prefer: str = "vllm/config", extra: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    found = find_def(src, cls, prefer)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    path, node = found
    tree = parse(src, path)
    methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
    consts = _module_literals(tree) if tree is not None else {}
    kinds = {name: _validator_kind(m) for name, m in methods.items()}
    if any(kind == "before-model" for kind, _ in kinds.values()):
        return None  # a before model validator may rewrite any field
    converted = {
        f
        for name, (kind, fields) in kinds.items()
        for f in fields
        if kind == "convert" or kind == "field" and not _returns_param(methods[name])
    }
    checks: list[dict[str, Any]] = []
    changes: set[str] = set()
    opaque = False
    # pydantic runs field validators, then __post_init__, then the after model validators:
    # a model validator sees what __post_init__ (or another model validator) assigned
    post = [methods[n] for n in ("__post_init__", *extra) if n in methods]
    seed: set[str] = set()
    bounds: dict[str, list[Any]] = {}  # under which guards __post_init__ assigned each path
    for method in post:
        walk = walk_method(path, methods, consts, method)
        checks += walk.out
        seed |= walk.mutated
        changes |= walk.mutated
        opaque |= walk.poisoned
        for changed, found in walk.guarded.bounds.items() if walk.guarded else ():
            bounds.setdefault(changed, []).extend(found)
    models = [m for n, m in methods.items() if kinds[n][0] == "model"]
    assigned = {m.name: _assigned(m) for m in models}
    for method in models:
        others = {f for name, fs in assigned.items() if name != method.name for f in fs}
        seen = {k: v + ([(None, None)] if k in others else []) for k, v in bounds.items()}
        walk = walk_method(
            path, methods, consts, method, seed=seed | others, poisoned=opaque, bounds=seen
        )
        checks += walk.out
        changes |= walk.mutated
        opaque |= walk.poisoned
    for name, (kind, fields) in kinds.items():
        if kind == "field" and name not in converted:
            for fname in fields:
                if fname not in converted:
                    checks += walk_method(path, methods, consts, methods[name], fname).out
    if not checks and not converted and not changes and not opaque:
        return None
    checks.sort(key=lambda c: (int(c["source"].rsplit(":", 1)[1]), c["test"]))
    unique = list({(c["source"], c["test"]): c for c in checks}.values())
    out: dict[str, Any] = {
        "checks": unique,
        "converted": sorted(converted),
        "changes": sorted({c.split(".")[0] for c in changes}),
        "defaults": field_defaults(src, node, path),
    }
    if opaque:
        out["opaque"] = True  # self goes to code not read: any field may change
    return out


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


def _module_literals(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``NAME = <literal>`` (names the module never reassigns)."""
    out: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name = node.targets[0].id
            if name in seen:
                out.pop(name, None)
                continue
            seen.add(name)
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            out[name] = node.value
    return out
