"""Choices an option computes from an enum's members when the parser is built:
``choices=[m.name.lower() for m in _modes()]`` where ``_modes`` returns ``list(SomeEnum)``
(importing it inside the function). Read from the AST: the enum's member names in
declaration order, with the ``.name`` / ``.value`` attribute and the string method the
comprehension applies. Any other shape: None (the choices stay unresolved).
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.astutil import class_constants
from servelint.builders.static_eval import Evaluator

_STR_METHODS = {"lower": str.lower, "upper": str.upper}


def _enum_class(ev: Evaluator, module: str, call: ast.expr) -> tuple[str, ast.ClassDef] | None:
    """``F()`` whose body imports ``C`` and returns ``list(C)``, or ``C`` / ``list(C)``."""
    target: Any = None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        if call.func.id == "list" and call.args:
            target = ev.eval(call.args[0], module)
        else:
            fn = ev.lookup(module, call.func.id)
            if isinstance(fn, tuple) and fn[0] == "function":
                target = _returned_class(ev, fn[1], fn[2])
    elif isinstance(call, ast.Name):
        target = ev.eval(call, module)
    if isinstance(target, tuple) and target[0] == "class":
        return target[1], target[2]
    return None


def _returned_class(ev: Evaluator, module: str, fn: ast.FunctionDef) -> Any:
    local: dict[str, tuple[str, str]] = {}
    for st in fn.body:
        if isinstance(st, ast.ImportFrom) and st.module and st.level == 0:
            for alias in st.names:
                local[alias.asname or alias.name] = (st.module, alias.name)
        elif (
            isinstance(st, ast.Return)
            and isinstance(st.value, ast.Call)
            and isinstance(st.value.func, ast.Name)
            and st.value.func.id == "list"
            and st.value.args
            and isinstance(st.value.args[0], ast.Name)
        ):
            name = st.value.args[0].id
            if name in local:
                return ev.lookup(*local[name])
            return ev.lookup(module, name)
    return None


def _members(cls: ast.ClassDef) -> list[tuple[str, Any]]:
    return [(n, v.value) for n, v in class_constants(cls) if isinstance(v, ast.Constant)]


def comprehension_choices(ev: Evaluator, module: str, node: ast.expr | None) -> list[str] | None:
    if not (isinstance(node, ast.ListComp) and len(node.generators) == 1):
        return None
    gen = node.generators[0]
    if gen.ifs or not isinstance(gen.target, ast.Name):
        return None
    found = _enum_class(ev, module, gen.iter)
    if found is None or not any(
        name_of_base(b) in {"Enum", "IntEnum", "StrEnum"} for b in found[1].bases
    ):
        return None
    elt, method = node.elt, None
    if (
        isinstance(elt, ast.Call)
        and isinstance(elt.func, ast.Attribute)
        and not elt.args
        and elt.func.attr in _STR_METHODS
    ):
        method, elt = _STR_METHODS[elt.func.attr], elt.func.value
    if not (
        isinstance(elt, ast.Attribute)
        and elt.attr in {"name", "value"}
        and isinstance(elt.value, ast.Name)
        and elt.value.id == gen.target.id
    ):
        return None
    values = [name if elt.attr == "name" else value for name, value in _members(found[1])]
    if not values or (method is not None and not all(isinstance(v, str) for v in values)):
        return None
    return [method(v) if method else str(v) for v in values]


def name_of_base(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
