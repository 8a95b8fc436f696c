"""Membership checks in vLLM's own code, read as late value sets.

Two code shapes, each read from the wheel (no names of options or values typed in here):

- a config class's ``@field_validator("f")`` (mode ``after``) that raises when the value is
  not in a collection: ``if not is_known(v): raise`` with ``def is_known(n): return n in
  COLL``, or ``if v not in COLL: raise`` (CacheConfig.cache_dtype, vllm/config/cache.py);
- a lookup function ``def get_x(p): if p not in COLL: raise`` whose parameter is fed from a
  config field of the same name (``get_config_parser(config_format)``, reached from
  ``ModelConfig`` through ``get_config(..., config_format=self.config_format)``); values its
  callers compare ``p`` against before the lookup (``if config_format == "auto"``) are
  accepted too.

COLL is a module constant: a list/tuple/set of strings, a dict literal (its keys), a
``Literal`` alias, or ``list(get_args(Alias))``. A module function that adds to COLL
(``COLL.append(name)``, ``COLL[name] = …``) means plugins can register more values at run
time: the set records where (``registered_by``).
"""

from __future__ import annotations

import ast
import re

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import (
    config_classes_with,
    files_with,
    literal_values,
    module_consts,
    parse,
    per_wheel,
    py_files,
    pydantic_validators,
    ref,
    str_list,
    text_of,
)
from servelint.builders.wheel import WheelSource


def validator_sets(src: WheelSource) -> list[dict]:
    """Sets checked by config-class field validators (see module doc)."""
    return per_wheel(src, "validator_sets", lambda: list(_validator_sets(src)))


def lookup_sets(src: WheelSource) -> list[dict]:
    """Sets checked by lookup functions fed from a same-named config field."""
    return per_wheel(src, "lookup_sets", lambda: list(_lookup_sets(src)))


# ---------------------------------------------------------------- collections


def _collection(
    tree: ast.Module, path: str, src: WheelSource, name: str
) -> tuple[list[str], str] | None:
    """(values, path:line) of the module-level collection ``name`` in ``tree``."""
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, ast.AnnAssign) else [])
        )
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        values = _collection_values(src, path, getattr(node, "value", None))
        return (values, ref(path, node)) if values else None
    return None


def _collection_values(src: WheelSource, path: str, value: ast.AST | None) -> list[str] | None:
    listed = str_list(value)
    if listed is not None:
        return listed
    if isinstance(value, ast.Dict):
        keys = [
            k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
        return keys if len(keys) == len(value.keys) else None
    # list(get_args(Alias)) / tuple(get_args(Alias)) / get_args(Alias)
    call = value
    if (
        isinstance(call, ast.Call)
        and dotted(call.func) in ("list", "tuple", "set")
        and len(call.args) == 1
    ):
        call = call.args[0]
    if isinstance(call, ast.Call) and dotted(call.func).endswith("get_args") and call.args:
        return literal_values(src, call.args[0], path)
    return literal_values(src, value, path)


def _registrar(tree: ast.Module, path: str, name: str) -> str:
    """path:line of a module function that adds to the collection ``name``, or ""."""
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and dotted(node.func.value) == name
                and node.func.attr in ("append", "add", "extend", "update", "setdefault", "insert")
            ):
                return ref(path, fn)
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Subscript) and dotted(t.value) == name for t in node.targets
            ):
                return ref(path, fn)
    return ""


def _membership(test: ast.AST, param: str, funcs: dict[str, ast.FunctionDef]) -> str | None:
    """The collection name of ``param not in NAME`` or ``not f(param)`` with ``f`` a module
    function ``return arg in NAME``; None for any other test."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.NotIn)
        and dotted(test.left) == param
        and isinstance(test.comparators[0], ast.Name)
    ):
        return test.comparators[0].id
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Call)
        and isinstance(test.operand.func, ast.Name)
        and len(test.operand.args) == 1
        and dotted(test.operand.args[0]) == param
    ):
        fn = funcs.get(test.operand.func.id)
        return _returns_membership(fn) if fn is not None else None
    return None


def _returns_membership(fn: ast.FunctionDef) -> str | None:
    body = [
        s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    args = [a.arg for a in fn.args.args]
    if len(body) != 1 or len(args) != 1 or not isinstance(body[0], ast.Return):
        return None
    ret = body[0].value
    if (
        isinstance(ret, ast.Compare)
        and len(ret.ops) == 1
        and isinstance(ret.ops[0], ast.In)
        and dotted(ret.left) == args[0]
        and isinstance(ret.comparators[0], ast.Name)
    ):
        return ret.comparators[0].id
    return None


def _raise_text(body: list[ast.stmt], consts: dict[str, str]) -> str | None:
    """The message of the ``raise X("…")`` that ``body`` starts with (None: not a raise)."""
    first = body[0] if body else None
    if not isinstance(first, ast.Raise):
        return None
    exc = first.exc
    if isinstance(exc, ast.Call) and exc.args:
        return text_of(exc.args[0], consts) or ""
    return ""


def _module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


# ---------------------------------------------------------------- field validators


def _field_validators(cls: ast.ClassDef) -> dict[str, list[tuple[ast.FunctionDef, str]]]:
    """field name -> [(validator, mode)] of the class's ``@field_validator`` methods."""
    out: dict[str, list[tuple[ast.FunctionDef, str]]] = {}
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for name, mode, fields in pydantic_validators(fn):
            for field in fields if name == "field_validator" else []:
                out.setdefault(field, []).append((fn, mode))
    return out


def _validator_sets(src: WheelSource):
    for path in py_files(src):
        if not path.startswith("vllm/config/") or "field_validator" not in src.read(path):
            continue
        tree = parse(src, path)
        if tree is None:
            continue
        funcs, consts = _module_functions(tree), module_consts(tree)
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            validators = _field_validators(cls)
            for fname, found in validators.items():
                if len(found) != 1 or found[0][1] != "after" or "*" in validators:
                    continue  # another validator may change the value first
                hit = _validator_check(found[0][0], funcs, consts)
                if hit is None:
                    continue
                coll, message = hit
                values = _collection(tree, path, src, coll)
                if values is None:
                    continue
                yield {
                    "name": fname,
                    "values": values[0],
                    "source": values[1],
                    "config_field": (cls.name, fname),
                    "message": message,
                    "check": ref(path, found[0][0]),
                    "registered_by": _registrar(tree, path, coll),
                }


def _validator_check(
    fn: ast.FunctionDef, funcs: dict[str, ast.FunctionDef], consts: dict[str, str]
) -> tuple[str, str] | None:
    args = [a.arg for a in fn.args.args]
    if len(args) < 2:
        return None
    param = args[1]  # (cls, value, ...)
    for stmt in fn.body:
        if isinstance(stmt, ast.If):
            coll = _membership(stmt.test, param, funcs)
            message = _raise_text(stmt.body, consts)
            if coll and message is not None:
                return coll, message
        # anything before the check that rebinds the value makes it a different value
        if any(
            isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store)
            for n in ast.walk(stmt)
        ):
            return None
    return None


# ---------------------------------------------------------------- lookup functions

_LOOKUP_TEXT = re.compile(
    r"^def \w+\((\w+)\b.*\n(?:.*\n){0,12}?    if (?:\1 not in |not \w+\(\1\))", re.M
)


def _lookup_sets(src: WheelSource):
    for path in files_with(src, " not in "):
        if not _LOOKUP_TEXT.search(src.read(path)):
            continue  # (a cheap text test first: parsing every file is slow)
        tree = parse(src, path)
        if tree is None:
            continue
        funcs, consts = _module_functions(tree), module_consts(tree)
        for fn in funcs.values():
            args = [a.arg for a in fn.args.args]
            if len(args) != 1 or not fn.body:
                continue
            first = next(
                (
                    s
                    for s in fn.body
                    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                ),
                None,
            )
            if not isinstance(first, ast.If):
                continue
            coll = _membership(first.test, args[0], funcs)
            message = _raise_text(first.body, consts)
            if coll is None or message is None:
                continue
            values = _collection(tree, path, src, coll)
            if values is None:
                continue
            fed = _fed_from_config(src, path, fn.name, args[0])
            if fed is None:
                continue
            cls, before, via = fed
            yield {
                "name": args[0],
                "values": list(dict.fromkeys(before + values[0])),
                "source": values[1],
                "config_field": (cls, args[0]),
                "message": message,
                "check": ref(path, fn),
                "via": via,
                "registered_by": _registrar(tree, path, coll),
            }


def _fed_from_config(
    src: WheelSource, path: str, func: str, param: str
) -> tuple[str, list[str], str] | None:
    """(config class, values compared before the lookup, caller path:line) when ``func`` is
    called as ``func(param)`` inside a function ``g(..., param, ...)`` that a config class
    calls with ``self.param``; None otherwise."""
    tree = parse(src, path)
    if tree is None:
        return None
    for caller in _module_functions(tree).values():
        params = {a.arg for a in caller.args.args + caller.args.kwonlyargs}
        if param not in params:
            continue
        calls = [
            c
            for c in ast.walk(caller)
            if isinstance(c, ast.Call)
            and dotted(c.func) == func
            and [dotted(a) for a in c.args] == [param]
        ]
        if not calls:
            continue
        cls = _config_caller(src, caller.name, param)
        if cls is None:
            continue
        return cls, _compared(caller, param), ref(path, caller)
    return None


def _compared(fn: ast.FunctionDef, param: str) -> list[str]:
    """Strings ``param`` is compared with by ``==`` in ``fn`` (values resolved before the
    lookup, e.g. ``"auto"`` detected from the model's files)."""
    out = []
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Compare)
            and dotted(node.left) == param
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Eq)
            and isinstance(node.comparators[0], ast.Constant)
            and isinstance(node.comparators[0].value, str)
        ):
            out.append(node.comparators[0].value)
    return out


def _config_caller(src: WheelSource, func: str, param: str) -> str | None:
    """The config class (under vllm/config/) that has a field ``param`` and calls ``func``
    passing ``self.param``."""
    for _path, cls in config_classes_with(src, f"{func}("):
        fields = {
            n.target.id
            for n in cls.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }
        if param not in fields:
            continue
        for call in ast.walk(cls):
            if (
                isinstance(call, ast.Call)
                and dotted(call.func).split(".")[-1] == func
                and any(
                    dotted(a) == f"self.{param}"
                    for a in list(call.args) + [k.value for k in call.keywords]
                )
            ):
                return cls.name
    return None


# ---------------------------------------------------------------- registry lookups in configs


def looked_up_fields(src: WheelSource, getter: str) -> list[tuple[str, str]]:
    """(config class, field) pairs whose value a config class passes to ``…getter(self.f)``
    unconditionally or under ``if self.f:`` only (ReasoningConfig.reasoning_parser,
    vllm/config/reasoning.py in 0.33.0); a lookup under any other condition (``if
    self.f is not None and (not self.a or not self.b)``) depends on other fields: left out."""
    out: list[tuple[str, str]] = []
    for path in files_with(src, f"{getter}("):
        if not path.startswith("vllm/config/"):
            continue
        tree = parse(src, path)
        for cls in tree.body if tree is not None else []:
            if isinstance(cls, ast.ClassDef):
                out += [(cls.name, f) for f in _looked_up(cls, getter)]
    return list(dict.fromkeys(out))


def _looked_up(cls: ast.ClassDef, getter: str) -> list[str]:
    fields = {
        n.target.id
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    found: list[str] = []
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node, parents in _with_parents(fn):
            if not (
                isinstance(node, ast.Call)
                and dotted(node.func).endswith(f".{getter}")
                and len(node.args) == 1
            ):
                continue
            arg = dotted(node.args[0])
            name = arg.removeprefix("self.")
            if name == arg or name not in fields:
                continue
            chain = (*parents, node)
            guards = [
                (p, chain[i + 1])
                for i, p in enumerate(parents)
                if isinstance(p, ast.If | ast.IfExp | ast.While)
            ]
            # each enclosing condition is `self.f` itself, and the call sits in its body
            if all(
                dotted(p.test) == arg
                and (child in p.body if isinstance(p.body, list) else child is p.body)
                for p, child in guards
            ):
                found.append(name)
    return found


def _with_parents(tree: ast.AST):
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        for child in ast.iter_child_nodes(node):
            stack.append((child, (*parents, node)))
