"""Expressions as the statement walker (condition_walk.py) rewrites them: ``self.<path>``
chains, a walk's locals and constants substituted, negation; shared with the checks it
records (condition_record.py)."""

from __future__ import annotations

import ast
import copy
from typing import TYPE_CHECKING

from servelint.builders.vllm.guarded import Unwalrus

if TYPE_CHECKING:
    from servelint.builders.vllm.condition_walk import Walk


def _changed(reads: set[str], mutated: set[str]) -> bool:
    """A read path (``a.b``) sees a changed value: it or a path above it was assigned."""
    return any(r == m or r.startswith(m + ".") for r in reads for m in mutated)


def self_field(node: ast.AST) -> str | None:
    """``x`` of ``self.x``, ``self.x.y``, ``self.x[i]``."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        inner = node.value
        if isinstance(node, ast.Attribute) and isinstance(inner, ast.Name) and inner.id == "self":
            return node.attr
        node = inner
    return None


def get_args_key(node: ast.AST) -> str | None:
    """``get_args(Name)`` (``typing.get_args`` too) as the walk's constants key it, else None."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""
    if name != "get_args" or not isinstance(node.args[0], ast.Name):
        return None
    return f"get_args({node.args[0].id})"


class _Substitute(ast.NodeTransformer):
    def __init__(self, walk: Walk):
        self.walk = walk
        self.bound: set[str] = set()

    def visit_Call(self, node: ast.Call) -> ast.AST:
        key = get_args_key(node)
        if key is not None and key in self.walk.consts:  # a Literal alias's values
            return copy.deepcopy(self.walk.consts[key])
        return self.generic_visit(node)

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        saved = set(self.bound)
        for gen in node.generators:
            gen.iter = self.visit(gen.iter)
            self.bound |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            gen.ifs = [self.visit(i) for i in gen.ifs]
        node.elt = self.visit(node.elt)
        self.bound = saved
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.bound:
            return node  # the comprehension's own variable
        if node.id in self.walk.aliases:
            value = self.walk.aliases[node.id]
            return copy.deepcopy(value) if value is not None else ast.Name("?", ast.Load())
        if node.id in self.walk.consts:
            return copy.deepcopy(self.walk.consts[node.id])
        return node


def _resolve(walk: Walk, node: ast.expr) -> ast.expr:
    return _Substitute(walk).visit(Unwalrus().visit(copy.deepcopy(node)))


def _negate(test: ast.expr) -> ast.expr:
    return ast.UnaryOp(ast.Not(), test)
