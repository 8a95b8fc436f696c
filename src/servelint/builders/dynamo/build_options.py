"""The options a Dynamo worker's argument groups add, read from the wheel's sources: calls to
Dynamo's ``add_argument`` / ``add_negatable_bool_argument`` helpers and ``parser.add_argument``,
option tables walked by a loop, and the groups and callees ``parse_args`` reaches."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from servelint.builders.static_eval import UNKNOWN

if TYPE_CHECKING:
    from servelint.builders.dynamo.builder import Sources

_MAX_DEPTH = 4
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Eval:
    """Constant values of choices / defaults (None when not constant), evaluated by the
    shared evaluator in module ``mod`` as seen from function ``scope``."""

    def __init__(
        self, src: Sources, mod: str, scope: ast.AST | None = None, bind: dict | None = None
    ) -> None:
        self.src, self.mod = src, mod
        self.local = src.ev.function_locals(mod, scope) if scope is not None else {}
        self.local.update(bind or {})

    def value(self, node: ast.AST | None) -> Any:
        if node is None:
            return None
        value = self.src.ev.eval(node, self.mod, dict(self.local))  # type: ignore[arg-type]
        return _plain(value)


def _plain(value: Any) -> Any:
    """A value as the profile records it: tuples as lists, evaluator markers as None."""
    if value is UNKNOWN or (
        isinstance(value, tuple) and value[:1] in {("class",), ("module",), ("function",)}
    ):
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def keyword(call: ast.Call, name: str) -> ast.AST | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def _option(
    call: ast.Call, src: Sources, mod: str, group: str, scope: ast.AST, bind: dict | None = None
) -> dict | None:
    """One option from a helper call or ``add_argument`` call (None if not an option);
    ``bind`` gives the names of a loop around the call (``_loop_bindings``)."""
    func = call.func
    fname = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    ev = _Eval(src, mod, scope, bind)
    where = f"{src.file(mod)}:{call.lineno}"
    if (
        fname in ("add_argument", "add_negatable_bool_argument")
        and keyword(call, "flag_name") is not None
    ):
        flag = ev.value(keyword(call, "flag_name"))
        if not isinstance(flag, str):
            return None
        names = [flag]
        obsolete = ev.value(keyword(call, "obsolete_flag"))
        if isinstance(obsolete, str):
            names.append(obsolete)
        negatable = fname == "add_negatable_bool_argument"
        env = keyword(call, "env_var")
        env_text = ev.value(env) if env is not None else None
        if env_text is None and isinstance(env, ast.JoinedStr):
            env_text = ast.unparse(env)
        return _record(
            names,
            negatable=negatable,
            nargs=ev.value(keyword(call, "nargs")),
            choices=ev.value(keyword(call, "choices")),
            action=ev.value(keyword(call, "action")),
            default=ev.value(keyword(call, "default")),
            env=env_text,
            source=where,
            group=group,
        )
    if fname == "add_argument" and isinstance(func, ast.Attribute):
        names = [
            a.value
            for a in call.args
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-")
        ]
        if not names:
            return None
        action = keyword(call, "action")
        action_name = ev.value(action) if not isinstance(action, ast.Attribute) else action.attr
        return _record(
            names,
            negatable=action_name == "BooleanOptionalAction",
            nargs=ev.value(keyword(call, "nargs")),
            choices=ev.value(keyword(call, "choices")),
            action=action_name,
            default=ev.value(keyword(call, "default")),
            env=None,
            source=where,
            group=group,
        )
    return None


def _loop_bindings(fn: ast.AST, call: ast.Call, ev: _Eval) -> list[dict]:
    """One binding of the loop names per row, for a call inside ``for a, b in TABLE:`` over a
    constant table (ai-dynamo 1.4.0 ``vllm/backend_args.py``: the legacy sampling flags)."""
    for loop in ast.walk(fn):
        if isinstance(loop, ast.For) and any(n is call for st in loop.body for n in ast.walk(st)):
            table = ev.value(_assigned(fn, loop.iter) or loop.iter)
            rows = [_bind(loop.target, row) for row in table] if isinstance(table, list) else []
            return rows if rows and all(b is not None for b in rows) else []
    return []


def _assigned(fn: ast.AST, node: ast.AST) -> ast.AST | None:
    """The value of the one plain assignment to a local name in ``fn``, wherever it sits."""
    if not isinstance(node, ast.Name):
        return None
    values = [
        st.value
        for st in ast.walk(fn)
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and st.targets[0].id == node.id
    ]
    return values[0] if len(values) == 1 else None


def _bind(target: ast.AST, value: Any) -> dict | None:
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, ast.Tuple) and isinstance(value, list | tuple):
        if len(value) != len(target.elts):
            return None
        out: dict = {}
        for t, v in zip(target.elts, value, strict=True):
            b = _bind(t, v)
            if b is None:
                return None
            out.update(b)
        return out
    return None


def _record(
    names: list[str],
    *,
    negatable: bool,
    nargs: Any,
    choices: Any,
    action: Any,
    default: Any,
    env: Any,
    source: str,
    group: str,
) -> dict:
    accepted = list(names)
    if negatable:
        accepted += ["--no-" + n[2:] for n in names if n.startswith("--")]
        kind = "boolean_optional"
    elif action in ("store_true", "store_false", "store_const", "count", "version", "help"):
        kind = action
    else:
        kind = "store"
    dest = names[0].lstrip("-").replace("-", "_")
    return {
        "option_strings": names,
        "accepted": accepted,
        "dest": dest,
        "kind": kind,
        "nargs": nargs if isinstance(nargs, int | str) else None,
        "choices": [str(c) for c in choices] if isinstance(choices, list) else None,
        "default": default if isinstance(default, str | int | float | bool) else None,
        "env_var": env if isinstance(env, str) else None,
        "source": source,
        "group": group,
    }


def _loose(node: ast.AST, ev: _Eval) -> Any:
    """A dict/list literal whose leaves may not all be constants (those become None)."""
    if isinstance(node, ast.Dict):
        return {
            ev.value(k): _loose(v, ev)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.List | ast.Tuple):
        return [_loose(e, ev) for e in node.elts]
    if isinstance(node, ast.Attribute):
        return node.attr  # argparse.BooleanOptionalAction -> "BooleanOptionalAction"
    return ev.value(node)


def _table_options(fn: ast.AST, src: Sources, mod: str, group: str) -> list[dict]:
    """Releases that add options in a loop over a table (``for info in ARGS.values():
    parser.add_argument(*info["flags"], ...)``, ai-dynamo 0.8)."""
    out = []
    for loop in ast.walk(fn):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Attribute)
            and loop.iter.func.attr == "values"
            and isinstance(loop.iter.func.value, ast.Name)
        ):
            continue
        found = src.find(mod, loop.iter.func.value.id, fn)
        if not found or isinstance(found[1], _DEFS):
            continue
        table = _loose(found[1], _Eval(src, found[0]))
        if not isinstance(table, dict):
            continue
        where = f"{src.file(found[0])}:{found[1].lineno}"
        for info in table.values():
            flags = info.get("flags") if isinstance(info, dict) else None
            if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
                continue
            action = info.get("action")
            out.append(
                _record(
                    flags,
                    negatable=action == "BooleanOptionalAction",
                    nargs=info.get("nargs"),
                    choices=info.get("choices"),
                    action=action,
                    default=info.get("default"),
                    env=None,
                    source=where,
                    group=group,
                )
            )
    return out


def calls(body: list[ast.stmt]) -> list[ast.Call]:
    out = []
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                out.append(node)
    return sorted(out, key=lambda c: (c.lineno, c.col_offset))


def options_of(
    fn: ast.AST, src: Sources, mod: str, group: str, depth: int, out: list[dict], seen: set
) -> None:
    """Options added by a function (following calls into helpers and other groups)."""
    if depth > _MAX_DEPTH or (mod, getattr(fn, "name", ""), depth) in seen:
        return
    seen.add((mod, getattr(fn, "name", ""), depth))
    out.extend(_table_options(fn, src, mod, group))
    for call in calls(getattr(fn, "body", [])):
        opt = _option(call, src, mod, group, fn)
        if opt is not None:
            out.append(opt)
            continue
        looped = [
            o
            for b in _loop_bindings(fn, call, _Eval(src, mod, fn))
            if (o := _option(call, src, mod, group, fn, b)) is not None
        ]
        if looped:
            out.extend(looped)
            continue
        for target_mod, target in _callees(call, src, mod, fn):
            if isinstance(target, ast.ClassDef):
                method = next(
                    (
                        m
                        for m in target.body
                        if isinstance(m, ast.FunctionDef) and m.name == "add_arguments"
                    ),
                    None,
                )
                if method is not None:
                    options_of(method, src, target_mod, target.name, depth + 1, out, seen)
            elif isinstance(target, ast.FunctionDef) and target.name.startswith("add_"):
                options_of(target, src, target_mod, group, depth + 1, out, seen)


def _callees(call: ast.Call, src: Sources, mod: str, fn: ast.AST) -> list[tuple[str, ast.AST]]:
    """Group classes (``X().add_arguments(p)``) and helper functions a call reaches."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "add_arguments"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
    ):
        found = src.find(mod, func.value.func.id, fn)
        return [found] if found else []
    if isinstance(func, ast.Name) and func.id not in (
        "add_argument",
        "add_negatable_bool_argument",
    ):
        found = src.find(mod, func.id, fn)
        if found and isinstance(found[1], ast.FunctionDef | ast.ClassDef):
            return [found]
    return []


def group_instances(fn: ast.AST, src: Sources, mod: str) -> list[tuple[str, ast.ClassDef]]:
    """``spec = SomeArgGroup()`` … ``spec.add_arguments(parser)`` inside parse_args."""
    names: dict[str, str] = {}
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            names[node.targets[0].id] = node.value.func.id
    out = []
    for call in calls(getattr(fn, "body", [])):
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "add_arguments"
            and isinstance(func.value, ast.Name)
            and func.value.id in names
        ):
            found = src.find(mod, names[func.value.id], fn)
            if found and isinstance(found[1], ast.ClassDef):
                out.append(found)  # type: ignore[arg-type]
    return out
