"""Reading SGLang's field annotations: ``A[T, Arg(...), NS(...)]`` / ``Annotated`` wrappers,
optional and union types, ``Literal`` choices, lists and type aliases defined in the wheel."""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.sglang.parser_values import (
    TYPE_NAMES,
    flatten_union,
    is_none,
    name_of,
)
from servelint.builders.static_eval import Evaluator


def unwrap_annotated(
    ev: Evaluator, node: ast.expr, module: str
) -> tuple[ast.expr, dict | None, str]:
    """(inner type, Arg kwargs or None, namespace path)"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute)):
        return node, None, ""
    head = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
    if head not in {"A", "Annotated"} or not isinstance(node.slice, ast.Tuple):
        return node, None, ""
    inner, *meta = node.slice.elts
    arg: dict | None = None
    ns = ""
    for m in meta:
        if isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "NS":
            ns = str(ev.eval(m.args[0], module)) if m.args else ""
            continue
        if arg is not None:
            continue
        if isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "Arg":
            arg = {kw.arg: kw.value for kw in m.keywords if kw.arg}
            if m.args:
                arg["help"] = m.args[0]
        elif isinstance(m, ast.Constant | ast.JoinedStr) or (
            isinstance(m, ast.BinOp) and isinstance(m.op, ast.Add)
        ):
            arg = {"help": m}
    return inner, arg, ns


def type_info(ev: Evaluator, node: ast.expr, module: str, depth: int = 0) -> dict[str, Any]:
    """kind: optional-unwrapped classification: literal | list | bool | scalar."""
    if depth > 5:
        return {"kind": "scalar", "type": "str"}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    # Optional / Union / X | None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = flatten_union(node)
        non_none = [p for p in parts if not is_none(p)]
        if len(non_none) == 1:
            return type_info(ev, non_none[0], module, depth + 1)
        return {"kind": "scalar", "type": "str"}
    if isinstance(node, ast.Subscript):
        head = name_of(node.value)
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return type_info(ev, elts[0], module, depth + 1)
        if head == "Union":
            non_none = [p for p in elts if not is_none(p)]
            if len(non_none) == 1:
                return type_info(ev, non_none[0], module, depth + 1)
            return {"kind": "scalar", "type": "str"}
        if head == "Literal":
            vals = [ev.eval(e, module) for e in elts]
            return {"kind": "literal", "values": vals}
        if head in {"List", "list"}:
            elem = name_of(elts[0]) if elts else "str"
            return {"kind": "list", "type": TYPE_NAMES.get(elem or "", "str")}
        if head in {"A", "Annotated"}:
            return type_info(ev, elts[0], module, depth + 1)
        return {"kind": "scalar", "type": "str"}
    name = name_of(node)
    if name == "bool":
        return {"kind": "bool"}
    if name in TYPE_NAMES:
        return {"kind": "scalar", "type": name}
    if isinstance(node, ast.Name):  # a type alias defined in the wheel
        alias = alias_expr(ev, module, node.id)
        if alias is not None:
            return type_info(ev, alias[1], alias[0], depth + 1)
    return {"kind": "scalar", "type": "str"}


def alias_expr(ev: Evaluator, module: str, name: str) -> tuple[str, ast.expr] | None:
    info = ev.module(module)
    if info is None:
        return None
    if name in info.assigns:
        st = info.assigns[name][-1]
        if isinstance(st, ast.Assign | ast.AnnAssign) and st.value is not None:
            return module, st.value
    if name in info.imports:
        mod, attr = info.imports[name]
        if attr:
            return alias_expr(ev, mod, attr)
    return None
