"""What the LLM arguments' ``validate_speculative_config`` asserts of each decoding class,
read from its source (``model_rules.speculative_asserts`` judges an option file by it).

The validator is a chain of ``if isinstance(self.speculative_config, Cls):`` branches; in each,
the ``assert`` statements that compare a field of ``self.speculative_config`` with a number
(``> 0``, ``>= 1``, ...) or with ``None`` (``is not None``), alone or joined by ``and``, are
recorded in order, with their line. An assert of another shape ends the branch's record (what
follows it cannot be known to run).
"""

from __future__ import annotations

import ast
from typing import Any

_OPS = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le", ast.IsNot: "is_not"}
_SUBJECT = "speculative_config"


def speculative_asserts(cls: ast.ClassDef) -> list[dict[str, Any]] | None:
    """``[{"class": name, "line": n, "checks": [...]}, ...]`` in the chain's order, or None
    when the class has no such validator."""
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "validate_speculative_config":
            branches: list[dict[str, Any]] = []
            for node in ast.walk(fn):
                if isinstance(node, ast.If):
                    name = _isinstance_of_subject(node.test)
                    if name is not None:
                        branches.append({"class": name, "line": node.lineno,
                                         "checks": _checks(node.body)})
            return sorted(branches, key=lambda b: b["line"]) or None
    return None


def _isinstance_of_subject(test: ast.expr) -> str | None:
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance" and len(test.args) == 2
            and _subject_field(test.args[0]) == "" and isinstance(test.args[1], ast.Name)):
        return test.args[1].id
    return None


def _subject_field(node: ast.expr) -> str | None:
    """"" for ``self.speculative_config``, "f" for ``self.speculative_config.f``, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "self" and node.attr == _SUBJECT:
        return ""
    if isinstance(node, ast.Attribute) and _subject_field(node.value) == "":
        return node.attr
    return None


def _checks(body: list[ast.stmt]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for st in body:
        if not isinstance(st, ast.Assert):
            continue
        parts = st.test.values if isinstance(st.test, ast.BoolOp) and isinstance(
            st.test.op, ast.And) else [st.test]
        found = [_compare(p) for p in parts]
        if any(f is None for f in found):
            break
        out += [dict(f, line=st.lineno) for f in found]  # type: ignore[arg-type]
    return out


def _compare(node: ast.expr) -> dict[str, Any] | None:
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return None
    field = _subject_field(node.left)
    op = _OPS.get(type(node.ops[0]))
    right = node.comparators[0]
    if not field or op is None or not isinstance(right, ast.Constant):
        return None
    value = right.value
    if op == "is_not" and value is not None:
        return None
    if op != "is_not" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return None
    return {"field": field, "op": op, "value": value}
