"""Before-validators that only normalise a string, read as data.

vLLM puts ``@field_validator("f", mode="before")`` in front of some ``Literal`` fields::

    if isinstance(value, str):
        return value.lower().replace("-", "_")
    return value

(KernelConfig.moe_backend, vllm/config/kernel.py). Such a validator is a chain of str
methods on strings and the identity on anything else, so the field's Literal check still
applies to the normalised text. ``string_steps`` returns that chain as data
(``[["lower"], ["replace", "-", "_"]]``, applied by ``engines.vllm.json_config``), or None
for any other body (its effect is then unknown and the field stays unjudged).
"""

from __future__ import annotations

import ast

# str methods whose effect on a text is known: name -> number of string arguments
STEPS = {"lower": 0, "upper": 0, "strip": 0, "lstrip": 0, "rstrip": 0, "casefold": 0, "replace": 2}


def string_steps(fn: ast.FunctionDef) -> list[list[str]] | None:
    args = [a.arg for a in fn.args.args]
    if len(args) != 2:  # (cls, value)
        return None
    value = args[1]
    body = [
        s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if len(body) != 2 or not isinstance(body[0], ast.If) or body[0].orelse:
        return None
    guard, rest = body[0], body[1]
    if ast.unparse(guard.test) != f"isinstance({value}, str)" or len(guard.body) != 1:
        return None
    if not (
        isinstance(rest, ast.Return) and ast.unparse(rest.value or ast.Constant(None)) == value
    ):
        return None
    ret = guard.body[0]
    if not isinstance(ret, ast.Return) or ret.value is None:
        return None
    return _chain(ret.value, value)


def _chain(node: ast.AST, value: str) -> list[list[str]] | None:
    steps: list[list[str]] = []
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        texts = [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        if STEPS.get(name) != len(node.args) or len(texts) != len(node.args) or node.keywords:
            return None
        steps.append([name, *texts])
        node = node.func.value
    if not (isinstance(node, ast.Name) and node.id == value) or not steps:
        return None
    return list(reversed(steps))
