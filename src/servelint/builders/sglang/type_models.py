"""What SGLang's custom ``type=`` functions and action classes accept, read from their AST.

Each recogniser matches one shape of code and returns a declarative model of it (the
check-time side is ``engines/sglang/value_models.py``); a function no recogniser matches
gets no model, and its values are then never judged. Every model records its source line.

* ``human_int``: ``re.fullmatch(PATTERN, value)`` with suffix tables, an ``int()`` fallback,
  and the suffixes whose decimals raise (``human_readable_int``);
* ``json``: ``json.loads`` / ``orjson.loads`` as the type, or a wrapper that calls it;
* ``json_phases``: a JSON object of phases, each a JSON object of allowed keys, with one
  key's value passed to another type function (``parse_cuda_graph_config_arg``);
* ``rejects``: a function that returns its input unless it equals one of some literals
  (``parse_cuda_graph_backend_arg``); argparse's ``choices`` then apply to the input;
* ``braced_json``: an action that strips each value and ``json.loads`` those written in
  braces, asserting keys (``LoRAPathAction``).
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.static_eval import UNKNOWN, Evaluator


def _fn(ev: Evaluator, module: str, name: str) -> tuple[str, ast.FunctionDef] | None:
    target = ev.lookup(module, name)
    if isinstance(target, tuple) and target[0] == "function":
        return target[1], target[2]
    return None


def _source(module: str, node: ast.AST) -> str:
    return f"{module.replace('.', '/')}.py:{getattr(node, 'lineno', 0)}"


def _calls(fn: ast.AST, attr: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attr
    ]


def _loader(call: ast.Call) -> str | None:
    base = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(base, ast.Name) and base.id in {"json", "orjson"}:
        return base.id
    return None


def _raises_type_error(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Raise) and n.exc is not None and "ArgumentTypeError" in ast.unparse(n.exc)
        for n in ast.walk(node)
    )


def model_of(ev: Evaluator, module: str, type_node: ast.expr | None) -> dict[str, Any] | None:
    """The model of the ``type=`` callable ``type_node`` names in ``module``, if known."""
    if (
        isinstance(type_node, ast.Attribute)
        and isinstance(type_node.value, ast.Name)
        and type_node.value.id in {"json", "orjson"}
        and type_node.attr == "loads"
    ):
        return {"kind": "json", "loader": type_node.value.id, "source": "stdlib"}
    if not isinstance(type_node, ast.Name):
        return None
    found = _fn(ev, module, type_node.id)
    if found is None:
        return None
    mod, fn = found
    for recognise in (_human_int, _json_phases, _json, _rejects):
        model = recognise(ev, mod, fn)
        if model is not None:
            model["source"] = _source(mod, fn)
            model["function"] = fn.name
            return model
    return None


def _param(fn: ast.FunctionDef) -> str | None:
    return fn.args.args[0].arg if fn.args.args else None


def _human_int(ev: Evaluator, mod: str, fn: ast.FunctionDef) -> dict[str, Any] | None:
    matches = [c for c in _calls(fn, "fullmatch") if c.args and isinstance(c.args[0], ast.Constant)]
    if len(matches) != 1 or not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "int"
        for n in ast.walk(fn)
    ):
        return None
    tables: dict[str, list[str]] = {}
    for st in ast.walk(fn):
        if (
            isinstance(st, ast.Assign)
            and isinstance(st.value, ast.Dict)
            and isinstance(st.targets[0], ast.Name)
        ):
            keys = [k.value for k in st.value.keys if isinstance(k, ast.Constant)]
            tables[st.targets[0].id] = [str(k) for k in keys]
    no_decimals: list[str] = []
    for node in ast.walk(fn):
        # if suffix in TABLE: if "." in number: raise ...
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.ops[0], ast.In)
            and isinstance(node.test.comparators[0], ast.Name)
            and node.test.comparators[0].id in tables
        ):
            for inner in node.body:
                if (
                    isinstance(inner, ast.If)
                    and "'.' in" in ast.unparse(inner.test)
                    and _raises_type_error(inner)
                ):
                    no_decimals += tables[node.test.comparators[0].id]
    invalid = None
    for node in ast.walk(fn):
        if isinstance(node, ast.ExceptHandler):
            invalid = invalid or _raise_template(node)
    strip = any(
        isinstance(c.func, ast.Attribute) and c.func.attr == "strip"
        for c in ast.walk(fn)
        if isinstance(c, ast.Call)
    )
    return {
        "kind": "human_int",
        "pattern": matches[0].args[0].value,
        "strip": strip,
        "no_decimal_suffixes": sorted(no_decimals),
        "invalid_message": invalid,
    }


def _raise_template(node: ast.AST) -> str | None:
    """The message of the first ``raise ArgumentTypeError(f"...")`` under ``node`` as a
    template (``{name}`` for each plain name it formats), when it formats only names."""
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Raise) and isinstance(sub.exc, ast.Call) and sub.exc.args):
            continue
        msg = sub.exc.args[0]
        parts = msg.values if isinstance(msg, ast.JoinedStr) else [msg]
        out = []
        for part in parts:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value.replace("{", "{{").replace("}", "}}"))
            elif (
                isinstance(part, ast.FormattedValue)
                and isinstance(part.value, ast.Name)
                and part.conversion == -1
                and part.format_spec is None
            ):
                out.append("{" + part.value.id + "}")
            else:
                return None
        return "".join(out)
    return None


def _json(ev: Evaluator, mod: str, fn: ast.FunctionDef) -> dict[str, Any] | None:
    loads = [c for c in _calls(fn, "loads") if _loader(c)]
    if len(loads) != 1 or len(fn.body) > 3 or not _raises_type_error(fn):
        return None
    return {"kind": "json", "loader": _loader(loads[0])}


def _rejects(ev: Evaluator, mod: str, fn: ast.FunctionDef) -> dict[str, Any] | None:
    """``if raw == "x": raise ArgumentTypeError(...)`` ... ``return raw``."""
    name = _param(fn)
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if (
        name is None
        or not returns
        or not all(isinstance(r.value, ast.Name) and r.value.id == name for r in returns)
    ):
        return None
    values: list[str] = []
    for st in fn.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue  # docstring
        if isinstance(st, ast.Return):
            continue
        test = st.test if isinstance(st, ast.If) else None
        if not (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == name
            and isinstance(test.ops[0], ast.Eq | ast.In)
            and _raises_type_error(st)
        ):
            return None
        value = ev.eval(test.comparators[0], mod)
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, list | tuple | set) and all(isinstance(v, str) for v in value):
            values += sorted(value)
        else:
            return None
    return {"kind": "rejects", "values": values, "returns_input": True}


def _json_phases(ev: Evaluator, mod: str, fn: ast.FunctionDef) -> dict[str, Any] | None:
    """``parsed = json.loads(raw)``; dict; ``for phase, settings in parsed.items()``: phase in
    PHASES, settings a dict, ``settings["K"]`` through another type function, keys in
    TABLE[phase]."""
    loads = [c for c in _calls(fn, "loads") if _loader(c) == "json"]
    loops = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.For)
        and isinstance(n.iter, ast.Call)
        and ast.unparse(n.iter).endswith(".items()")
    ]
    if len(loads) != 1 or not loops or not isinstance(loops[0].target, ast.Tuple):
        return None
    phases: Any = UNKNOWN
    table: Any = UNKNOWN
    checked: dict[str, Any] = {}
    for node in ast.walk(loops[0]):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.NotIn)
            and isinstance(node.comparators[0], ast.Attribute)
        ):
            phases = _class_constant(ev, mod, node.comparators[0])
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id.isupper()
        ):
            table = ev.eval(node.value, mod)
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.args
            and isinstance(node.value.args[0], ast.Subscript)
            and isinstance(node.value.args[0].slice, ast.Constant)
        ):
            sub = model_of(ev, mod, node.value.func)
            if sub is not None:
                checked[str(node.value.args[0].slice.value)] = sub
    if not (isinstance(phases, tuple | list) and isinstance(table, dict)):
        return None
    keys = {str(k): [str(x) for x in v] for k, v in table.items() if isinstance(v, tuple | list)}
    if set(keys) != {str(p) for p in phases}:
        return None
    return {
        "kind": "json_phases",
        "phases": [str(p) for p in phases],
        "keys": keys,
        "checked": checked,
    }


def _class_constant(ev: Evaluator, mod: str, node: ast.Attribute) -> Any:
    """``Cls.NAME`` where the class body builds NAME from its earlier attributes."""
    target = ev.eval(node.value, mod)
    if not (isinstance(target, tuple) and target[0] == "class"):
        return UNKNOWN
    local: dict[str, Any] = {}
    for st in target[2].body:
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
        ):
            local[st.targets[0].id] = ev.eval(st.value, target[1], dict(local))
    return local.get(node.attr, UNKNOWN)


def action_model(ev: Evaluator, module: str, name: str) -> dict[str, Any] | None:
    """An action class whose ``__call__`` ``json.loads`` the values written in braces."""
    target = ev.lookup(module, name)
    if not (isinstance(target, tuple) and target[0] == "class"):
        return None
    call = next(
        (st for st in target[2].body if isinstance(st, ast.FunctionDef) and st.name == "__call__"),
        None,
    )
    if call is None:
        return None
    text = ast.unparse(call)
    loads = [c for c in _calls(call, "loads") if _loader(c) == "json"]
    if len(loads) != 1 or ".startswith('{')" not in text or ".endswith('}')" not in text:
        return None
    keys: list[str] = []
    for node in ast.walk(call):
        if isinstance(node, ast.Assert):
            keys += [
                c.left.value
                for c in ast.walk(node.test)
                if isinstance(c, ast.Compare)
                and isinstance(c.left, ast.Constant)
                and isinstance(c.ops[0], ast.In)
            ]
    return {
        "kind": "braced_json",
        "strip": ".strip()" in text,
        "required_keys": keys,
        "source": _source(target[1], call),
        "function": f"{name}.__call__",
    }
