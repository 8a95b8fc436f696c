"""How the engine fills each config class, for the ``conditions`` section: the field defaults
a class declares, how ``EngineArgs.create_engine_config`` builds each class
(``Cls(field=self.dest, …)``), and which dests ``EngineArgs`` or the serve entrypoints change
before that."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.astutil import assigned_targets, dotted
from servelint.builders.vllm import local_built
from servelint.builders.vllm.condition_walk import Walk, assign, taint
from servelint.builders.vllm.engine_locals import passed_values
from servelint.builders.vllm.facts_common import files_with, find_def, parse, per_wheel
from servelint.builders.vllm.walk_exprs import self_field
from servelint.builders.wheel import WheelSource


def engine_args_assigned(cls: ast.ClassDef) -> list[str]:
    """The dests ``EngineArgs``' methods change, except ``self.x = Cfg(**self.x)`` (a dict
    turned into the config object it describes: the same values)."""
    same = {
        id(st)
        for st in ast.walk(cls)
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and _rebuilds_itself(st.targets[0], st.value)
    }
    walk = Walk("", {}, {})
    for st in ast.walk(cls):
        if isinstance(st, ast.Assign | ast.AugAssign | ast.AnnAssign) and id(st) not in same:
            assign(walk, st)
        elif isinstance(st, ast.Call):
            f = st.func
            root = self_field(f.value) if isinstance(f, ast.Attribute) else None
            if root:
                walk.mutated.add(root)
    return sorted({m.split(".")[0] for m in walk.mutated})


_CHANGED_OBJECTS = ("args", "engine_args")  # the parsed namespace, the EngineArgs built from it


def namespace_assigned(src: WheelSource) -> frozenset[str]:
    """Dests the entrypoints change on the parsed namespace or the engine arguments before
    building the engine config (``args.api_server_count = 1`` in ``vllm serve``,
    ``engine_args.pooler_config = …`` in ``entrypoints/common/cli_args.py``); once per wheel
    (the conditions, the guarded lookups and the constructions all ask)."""
    return per_wheel(src, "namespace_assigned", lambda: frozenset(_namespace_assigned(src)))


def _namespace_assigned(src: WheelSource) -> set[str]:
    out: set[str] = set()
    for name in files_with(src, "args."):
        if not name.startswith("vllm/entrypoints/") or (tree := parse(src, name)) is None:
            continue
        for node in ast.walk(tree):
            targets = assigned_targets(node)
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in _CHANGED_OBJECTS
                ):
                    out.add(target.attr)
            if (
                isinstance(node, ast.Call)
                and dotted(node.func) == "setattr"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in _CHANGED_OBJECTS
            ):
                name_arg = node.args[1] if len(node.args) > 1 else None
                if isinstance(name_arg, ast.Constant) and isinstance(name_arg.value, str):
                    out.add(name_arg.value)
                else:
                    out.add("*")  # setattr(args, <computed>, …): any dest
    return out


def _rebuilds_itself(target: ast.expr, value: ast.expr) -> bool:
    field_ = self_field(target) if isinstance(target, ast.Attribute) else None
    return (
        bool(field_)
        and isinstance(value, ast.Call)
        and not value.args
        and len(value.keywords) == 1
        and value.keywords[0].arg is None
        and ast.unparse(value.keywords[0].value) == f"self.{field_}"
    )


# ---- field defaults, as the class declares them ------------------------------------------
def field_defaults(
    src: WheelSource, node: ast.ClassDef, path: str, depth: int = 0
) -> dict[str, Any]:
    """field -> {"value": literal} or {"factory": class name} for the fields whose default
    the source states (``x: int = 0``, ``field(default=…)``, ``Field(…)``,
    ``field(default_factory=Cls)``, ``x: int = Cfg.x``); others are left out (unknown)."""
    out: dict[str, Any] = {}
    for st in node.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
            found = _default_of(src, st.value, depth)
            if found is not None:
                out[st.target.id] = found
    return out


def _default_of(src: WheelSource, value: ast.expr, depth: int) -> dict[str, Any] | None:
    if isinstance(value, ast.Call):
        name = dotted(value.func).rsplit(".", 1)[-1]
        if name not in ("field", "Field"):
            return None
        kw = {k.arg: k.value for k in value.keywords if k.arg}
        if "default" in kw:
            return _default_of(src, kw["default"], depth)
        if name == "Field" and value.args:
            return _default_of(src, value.args[0], depth)
        factory = kw.get("default_factory")
        if isinstance(factory, ast.Name):
            if factory.id in ("list", "dict", "set", "tuple"):
                return {"value": {"list": [], "dict": {}, "set": [], "tuple": []}[factory.id]}
            return {"factory": factory.id}
        return None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and depth < 2:
        found = find_def(src, value.value.id, "vllm/config")  # x: int = ParallelConfig.x
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        return field_defaults(src, found[1], found[0], depth + 1).get(value.attr)
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if isinstance(literal, set | frozenset | tuple):
        literal = sorted(literal, key=repr) if not isinstance(literal, tuple) else list(literal)
    return {"value": literal} if _json_safe(literal) else None


def _json_safe(value: Any) -> bool:
    if isinstance(value, list):
        return all(_json_safe(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v) for k, v in value.items())
    return value is None or isinstance(value, bool | int | float | str)


# ---- how create_engine_config builds each config class --------------------------------------
def constructions(src: WheelSource, classes: set[str]) -> dict[str, dict[str, Any]]:
    """cls -> {"fields": {field: dest | {"expr": …} | None}, "open": bool, "source":
    path:line} for the one unconditional ``Cls(...)`` call in
    ``EngineArgs.create_engine_config`` (``expr``: engine_locals.passed_values)."""
    changed_before = changed_before_build(src)
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return {}
    path, node = found
    method = next(
        (
            m
            for m in node.body
            if isinstance(m, ast.FunctionDef) and m.name == "create_engine_config"
        ),
        None,
    )
    if method is None:
        return {}
    methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
    calls: dict[str, list[tuple[ast.Call, bool, str]]] = {}
    _collect_calls(_Calls(methods, classes, path, calls), method.body, False, 0)
    computed = passed_values(method, methods, classes, changed_before)
    out: dict[str, dict[str, Any]] = {}
    nodes: dict[str, tuple[ast.Call, dict[str, Any]]] = {}
    for cls, found_calls in calls.items():
        if len(found_calls) != 1 or found_calls[0][1]:
            continue  # built in several places or under a condition: not judged
        call, _, where = found_calls[0]
        spec = _call_spec(call, classes)
        if where == path:  # a computed argument: {"expr": …} over the launch's dests
            for name, text in computed.get((cls, call.lineno), {}).items():
                spec["fields"][name] = {"expr": text}
            nodes[cls] = (call, spec)
        out[cls] = dict(spec, source=f"{where}:{call.lineno}")
    for cls, (call, _spec) in nodes.items():  # `x = Cls(...)` … `Other(field=x)`
        local_built.nested_locals(method, call, out[cls], nodes)
    return out


def changed_before_build(src: WheelSource) -> set[str]:
    """Dests changed before ``create_engine_config`` runs: by the entrypoints and by
    ``EngineArgs.__post_init__``."""
    out = set(namespace_assigned(src))
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return out
    methods = {m.name: m for m in found[1].body if isinstance(m, ast.FunctionDef)}
    if "__post_init__" in methods:
        walk = Walk("", methods, {})
        taint(walk, methods["__post_init__"])
        out |= {m.split(".")[0] for m in walk.mutated} | ({"*"} if walk.poisoned else set())
    return out


def _call_spec(call: ast.Call, classes: set[str]) -> dict[str, Any]:
    """{"fields": {field: dest | None | nested spec}, "open": bool} of one ``Cls(...)`` call:
    ``field=self.dest`` names the dest, ``field=Other(...)`` of a config class is the nested
    object it builds, anything else is None (not the launch's value)."""
    fields: dict[str, Any] = {}
    open_ = bool(call.args)
    for kw in call.keywords:
        if kw.arg is None:
            open_ = True
            continue
        value = kw.value
        if (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == "self"
        ):
            fields[kw.arg] = value.attr
        elif isinstance(value, ast.Call) and dotted(value.func).rsplit(".", 1)[-1] in classes:
            nested = _call_spec(value, classes)
            fields[kw.arg] = dict(nested, cls=dotted(value.func).rsplit(".", 1)[-1])
        else:
            fields[kw.arg] = None
    return {"fields": dict(sorted(fields.items())), "open": open_}


@dataclass
class _Calls:
    methods: dict[str, ast.FunctionDef]
    classes: set[str]
    path: str
    out: dict[str, list[tuple[ast.Call, bool, str]]]
    seen: set[str] = field(default_factory=set)


def _collect_calls(calls: _Calls, body: list[ast.stmt], guarded: bool, depth: int) -> None:
    """Every ``Cls(...)`` call of ``body`` and of the ``self.<method>()`` helpers it calls,
    with whether it runs only under a condition (an ``if``, a loop, a ``try``, a conditional
    expression, or after an earlier ``return`` of its method)."""
    for st in body:
        if isinstance(st, ast.If | ast.For | ast.While | ast.Try | ast.With):
            for name in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(st, name, None) or []
                stmts = [s for h in inner for s in h.body] if name == "handlers" else inner
                _collect_calls(calls, stmts, guarded or not isinstance(st, ast.With), depth)
        else:
            for sub in ast.walk(st):
                if not isinstance(sub, ast.Call):
                    continue
                name = dotted(sub.func).rsplit(".", 1)[-1]
                if name in calls.classes:
                    calls.out.setdefault(name, []).append(
                        (sub, guarded or _in_ifexp(st, sub), calls.path)
                    )
                helper = _self_method(sub, calls.methods)
                if helper is not None and helper.name not in calls.seen and depth < 2:
                    calls.seen.add(helper.name)
                    _collect_calls(calls, helper.body, guarded or _in_ifexp(st, sub), depth + 1)
        if any(isinstance(n, ast.Return) for n in ast.walk(st)):
            guarded = True  # what follows runs only when that return was not taken


def _self_method(call: ast.Call, methods: dict[str, ast.FunctionDef]) -> ast.FunctionDef | None:
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        return methods.get(func.attr)
    return None


def _in_ifexp(st: ast.stmt, call: ast.Call) -> bool:
    return any(
        isinstance(n, ast.IfExp | ast.BoolOp) and any(c is call for c in ast.walk(n))
        for n in ast.walk(st)
    )
