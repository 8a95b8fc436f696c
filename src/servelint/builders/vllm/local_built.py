"""Config objects ``create_engine_config`` builds into a local and then passes on:
``scheduler_config = SchedulerConfig(...)`` … ``VllmConfig(scheduler_config=scheduler_config)``.

engine_build.constructions records such a keyword as ``None`` (not the launch's value). When
the local is bound once, by a statement of the method's own body that is the class's one
unconditional construction, and between that statement and the call the method only reads
fields of it (``x.f``; a field stored ``x.f = …`` or changed in place ``x.f.g = …`` /
``x.f.append(…)`` is recorded as unknown), the keyword is recorded as that construction
(``{"cls": …, "fields": …}``, the nested shape ``_call_spec`` gives ``field=Cls(...)``), so
the check-time walker knows the object. Any other use of the local (a method called on it,
handed to a call, aliased, read in a nested function) leaves the keyword ``None``.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

_PURE_USES = (
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.BinOp,
    ast.If,
    ast.While,
    ast.Assert,
    ast.IfExp,
    ast.FormattedValue,
)


def nested_locals(
    method: ast.FunctionDef,
    call: ast.Call,
    spec: dict[str, Any],
    built: dict[str, tuple[ast.Call, dict[str, Any]]],
) -> None:
    """Fill ``spec["fields"]`` (of ``call``, a construction in ``method``'s own body) for the
    keywords that pass a local holding one of ``built`` (cls -> its one construction and
    spec)."""
    body = method.body
    at = _statement_index(body, call)
    if at is None:
        return
    for kw in call.keywords:
        if kw.arg is None or not isinstance(kw.value, ast.Name):
            continue
        if spec["fields"].get(kw.arg) is not None:
            continue
        found = _local_construction(method, kw.value.id, built)
        if found is None:
            continue
        cls, where, nested = found
        if where >= at:
            continue
        unknown = _fields_changed(body[where + 1 : at + 1], kw.value.id, call)
        if unknown is None:
            continue
        nested = copy.deepcopy(nested)
        for name in unknown:
            nested["fields"][name] = None
        nested["fields"] = dict(sorted(nested["fields"].items()))
        spec["fields"][kw.arg] = dict(nested, cls=cls)


def _statement_index(body: list[ast.stmt], call: ast.Call) -> int | None:
    for i, st in enumerate(body):
        if any(n is call for n in ast.walk(st)):
            return i
    return None


def _local_construction(
    method: ast.FunctionDef, name: str, built: dict[str, tuple[ast.Call, dict[str, Any]]]
) -> tuple[str, int, dict[str, Any]] | None:
    """(cls, statement index, spec) when ``name`` is bound once in ``method``, by a top-level
    ``name = Cls(...)`` that is the class's one recorded construction."""
    binds = [
        n
        for n in ast.walk(method)
        if isinstance(n, ast.Name)
        and n.id == name
        and isinstance(n.ctx, ast.Store | ast.Del)
        or isinstance(n, ast.arg)
        and n.arg == name
        or isinstance(n, ast.Global | ast.Nonlocal)
        and name in n.names
    ]
    if len(binds) != 1:
        return None
    for i, st in enumerate(method.body):
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and st.targets[0] is binds[0]
            and isinstance(st.value, ast.Call)
        ):
            for cls, (node, nested) in built.items():
                if node is st.value:
                    return cls, i, {k: v for k, v in nested.items() if k != "source"}
    return None


def _fields_changed(stmts: list[ast.stmt], name: str, call: ast.Call) -> set[str] | None:
    """The fields of local ``name`` that ``stmts`` may change (None: the object itself may
    change or escape). ``call``'s own ``kw=name`` is the use being recorded."""
    parents: dict[int, ast.AST] = {}
    nested: set[int] = set()
    for st in stmts:
        for node in ast.walk(st):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                nested |= {id(n) for n in ast.walk(node)}
    passed = {id(kw.value) for kw in call.keywords}
    changed: set[str] = set()
    for st in stmts:
        for node in ast.walk(st):
            if not (isinstance(node, ast.Name) and node.id == name) or id(node) in passed:
                continue
            parent = parents.get(id(node))
            if id(node) in nested or not isinstance(parent, ast.Attribute):
                return None  # handed on, aliased, or read later by a nested function
            field = parent.attr
            outer = parents.get(id(parent))
            if isinstance(outer, ast.Call) and outer.func is parent:
                return None  # a method of the object: it may change any field
            if _changed_through(parent, parents):
                changed.add(field)
    return changed


def _changed_through(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """``node`` (``x.f``) is stored, deleted, the base of a chain that is stored or has a
    method called on it, or used anywhere but a test, arithmetic or a message."""
    current: ast.AST = node
    while True:
        if isinstance(current, ast.Attribute | ast.Subscript) and isinstance(
            current.ctx, ast.Store | ast.Del
        ):
            return True
        parent = parents.get(id(current))
        if isinstance(parent, ast.Call) and parent.func is current and current is not node:
            return True  # x.f.append(...)
        if isinstance(parent, ast.AugAssign) and parent.target is current:
            return True
        if not (isinstance(parent, ast.Attribute | ast.Subscript) and parent.value is current):
            # read where nothing can keep or change it (a test, arithmetic, a message);
            # handed to a call or bound to a name, it may be changed through the alias
            return not isinstance(parent, _PURE_USES)
        current = parent
