"""The backends a config class says it supports (``supports_backend``), read from its source.

``DecodingBaseConfig`` and ``BaseSparseAttentionConfig`` subclasses answer
``supports_backend(backend)``; the LLM arguments' ``validate_speculative_config`` raises when
the answer is false. The recognised bodies are one ``return`` of ``True``, of
``backend == "x"`` / ``backend != "x"``, of ``backend in (...)`` / ``not in (...)``, or an
``or`` of such comparisons; any other body records nothing (no verdict).
"""

from __future__ import annotations

import ast
from typing import Any


def supports_backend(cls: ast.ClassDef) -> dict[str, Any] | None:
    """``{"op": "in" | "not_in", "values": [...], "line": n}`` for the class's own
    ``supports_backend``; None when it has none or its body is not a recognised shape."""
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "supports_backend":
            body = [s for s in fn.body if not _is_docstring(s)]
            args = [a.arg for a in fn.args.args[1:]]
            if len(body) != 1 or not isinstance(body[0], ast.Return) or len(args) != 1:
                return None
            found = _predicate(body[0].value, args[0])
            return None if found is None else {**found, "line": fn.lineno}
    return None


def _is_docstring(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)


def _predicate(node: ast.expr | None, arg: str) -> dict[str, Any] | None:
    if isinstance(node, ast.Constant) and node.value is True:
        return {"op": "not_in", "values": []}
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        parts = [_predicate(v, arg) for v in node.values]
        if any(p is None or p["op"] != "in" for p in parts):
            return None
        return {"op": "in", "values": [v for p in parts for v in p["values"]]}  # type: ignore[index]
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    if not (isinstance(left, ast.Name) and left.id == arg):
        return None
    values = _strings(right)
    if values is None:
        return None
    if isinstance(op, ast.Eq | ast.In):
        return {"op": "in", "values": values}
    if isinstance(op, ast.NotEq | ast.NotIn):
        return {"op": "not_in", "values": values}
    return None


def _strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        out = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        return out if len(out) == len(node.elts) and all(isinstance(v, str) for v in out) else None
    return None
