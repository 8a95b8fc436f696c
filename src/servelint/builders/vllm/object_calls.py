"""Calls on a config object a field holds, for the statement walker (condition_walk.py):
``self.engram_config.verify_model_config(model_config)`` in a validator of ``VllmConfig``.

The method of the field's config class (``EngramConfig.verify_model_config``; not the
model's own class, whose fields are the model's) is read in place: its ``self`` becomes ``self.<field>`` (so what it reads and assigns are paths of the
walked object), its module's literals are substituted, and it keeps its own file for the
checks' sources. Its parameters are bound by the walker to the call's arguments.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from servelint.builders.vllm.facts_common import find_def, module_literals, parse
from servelint.builders.wheel import WheelSource

Resolver = Callable[[str, str], ast.FunctionDef | None]


def resolver(src: WheelSource, profile: dict[str, Any], cls: str) -> Resolver:
    """``(field, method) -> `` the method of the config class field ``field`` of ``cls``
    holds, read over ``self.<field>``, or None (not a config class, no such method)."""
    configs = profile.get("configs") or {}
    fields = (configs.get(cls) or {}).get("fields", {})
    actions = (profile.get("parser") or {}).get("actions") or []
    # the model's own methods are not followed: what they read is the model's (model_split)
    model_class = next((a.get("field_of") for a in actions if a.get("dest") == "model"), None)
    memo: dict[tuple[str, str], ast.FunctionDef | None] = {}

    def find(name: str, method: str) -> ast.FunctionDef | None:
        key = (name, method)
        if key in memo:
            return memo[key]
        memo[key] = None
        other = (fields.get(name) or {}).get("config")
        if not other or other not in configs or other == model_class:
            return None
        found = find_def(src, other, "vllm/config")
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        path, node = found
        target = next(
            (m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == method), None
        )
        if target is None or target.decorator_list:  # a property or a validator: not a call
            return None
        tree = parse(src, path)
        literals = module_literals(tree) if tree is not None else {}
        memo[key] = _over_field(target, name, literals, path)
        return memo[key]

    return find


def _over_field(
    method: ast.FunctionDef, name: str, literals: dict[str, ast.expr], path: str
) -> ast.FunctionDef:
    params = {a.arg for a in method.args.args[1:]}
    params |= {  # locals shadow the module's literals
        n.id for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    inner = copy.deepcopy(method)
    inner.body = [_OverField(name, literals, params).visit(st) for st in inner.body]
    inner.path = path  # type: ignore[attr-defined]  # read by condition_walk._call
    return inner


class _OverField(ast.NodeTransformer):
    def __init__(self, name: str, literals: dict[str, ast.expr], params: set[str]):
        self.name, self.literals, self.params = name, literals, params

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "self":
            return ast.Attribute(ast.Name("self", ast.Load()), self.name, ast.Load())
        if node.id in self.params or not isinstance(node.ctx, ast.Load):
            return node
        if node.id in self.literals:
            return copy.deepcopy(self.literals[node.id])
        return node
