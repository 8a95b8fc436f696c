"""Name dispatches in vLLM's own code, read as late value sets: a config class's
``__post_init__`` runs ``if v == "ray": … elif v == "mp": … elif isinstance(v, str):
resolve(v)``, where ``resolve`` splits a class path, so a name outside the chain with no dot
fails (Executor.get_class, vllm/v1/executor/abstract.py, from VllmConfig.__post_init__)."""

from __future__ import annotations

import ast

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import (
    config_classes_with,
    files_with,
    parse,
    per_wheel,
    ref,
)
from servelint.builders.wheel import WheelSource


def dispatch_sets(src: WheelSource) -> list[dict]:
    """Sets checked by a dispatch on a config field's value that a config class runs in
    ``__post_init__``: ``if v == "ray": … elif v == "mp": … elif isinstance(v, str):
    resolve(v)``, where ``resolve`` splits a class path (``a, b = q.rsplit(".", 1)``): a
    name outside the chain that has no dot fails that unpacking (Executor.get_class,
    vllm/v1/executor/abstract.py, called from VllmConfig.__post_init__). A text with a dot
    names a class to import: not judged (``class_paths``)."""
    return per_wheel(src, "dispatch_sets", lambda: list(_dispatch_sets(src)))


def _dispatch_sets(src: WheelSource):
    splitters = _qualname_splitters(src)
    if not splitters:
        return
    for path in files_with(src, *(f"{name}(" for name in sorted(splitters))):
        tree = parse(src, path)
        if tree is None or "isinstance(" not in src.read(path):
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            found = _dispatch(fn, splitters)
            if found is None:
                continue
            field, values = found
            caller = _post_init_caller(src, fn.name)
            owner = _field_owner(src, field)
            if caller is None or owner is None:
                continue
            yield {
                "name": field,
                "values": values,
                "source": ref(path, fn),
                "config_field": (owner, field),
                "message": f"any other name is read as a class path module.Class, and "
                f"one without a dot fails there; {caller[0]}.__post_init__ "
                f"runs it, {caller[1]}",
                "check": ref(path, fn),
                "registered_by": "",
                "class_paths": True,
            }


def _qualname_splitters(src: WheelSource) -> set[str]:
    """Module functions whose first statement is ``a, b = q.rsplit(".", 1)`` (a text
    without a dot fails the unpacking)."""
    out = set()
    for path in files_with(src, 'rsplit(".", 1)'):
        tree = parse(src, path)
        for fn in tree.body if tree is not None else []:
            if not isinstance(fn, ast.FunctionDef) or not fn.args.args:
                continue
            body = [
                s
                for s in fn.body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            ]
            first = body[0] if body else None
            if (
                isinstance(first, ast.Assign)
                and isinstance(first.targets[0], ast.Tuple)
                and len(first.targets[0].elts) == 2
                and ast.unparse(first.value) == f"{fn.args.args[0].arg}.rsplit('.', 1)"
            ):
                out.add(fn.name)
    return out


def _dispatch(fn: ast.FunctionDef, splitters: set[str]) -> tuple[str, list[str]] | None:
    """(field, names) of the dispatch in ``fn``, or None."""
    for stmt in fn.body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Attribute)
            and stmt.value.attr == stmt.targets[0].id
        ):
            continue
        var = stmt.targets[0].id
        chain = next(
            (s for s in fn.body if isinstance(s, ast.If) and var in ast.unparse(s.test)), None
        )
        names: list[str] = []
        node: ast.stmt | None = chain
        while isinstance(node, ast.If):
            test = node.test
            if (
                isinstance(test, ast.Compare)
                and dotted(test.left) == var
                and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.comparators[0], ast.Constant)
            ):
                names.append(test.comparators[0].value)
            elif ast.unparse(test) == f"isinstance({var}, str)":
                calls = [c for c in ast.walk(node.body[0]) if isinstance(c, ast.Call)]
                if calls and dotted(calls[0].func) in splitters and names:
                    return var, names
                return None
            node = node.orelse[0] if len(node.orelse) == 1 else None
    return None


def _post_init_caller(src: WheelSource, method: str) -> tuple[str, str] | None:
    """(config class, path:line) of a ``__post_init__`` that calls ``X.method(self)`` at its
    top level (not under a condition)."""
    for path, cls in config_classes_with(src, f".{method}(self)"):
        init = next(
            (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__post_init__"),
            None,
        )
        for stmt in init.body if init is not None else []:
            if isinstance(stmt, ast.Assign | ast.Expr) and any(
                isinstance(c, ast.Call)
                and dotted(c.func).endswith(f".{method}")
                and [dotted(a) for a in c.args] == ["self"]
                for c in ast.walk(stmt)
            ):
                return cls.name, ref(path, stmt)
    return None


def _field_owner(src: WheelSource, field: str) -> str | None:
    """The config class under vllm/config/ that declares ``field``."""
    for _path, cls in config_classes_with(src, f"    {field}:"):
        if any(
            isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == field
            for n in cls.body
        ):
            return cls.name
    return None
