"""What a guarded assignment stores, for a later test of the field (guarded.py keeps the
test only where no assignment ran; this adds where the one assignment did run).

``ParallelConfig.__post_init__`` (vLLM 0.21+) assigns ``self.data_parallel_size =
envs.VLLM_DP_SIZE`` only ``if not (self.data_parallel_size > 1 or
self.data_parallel_size_local == 0)``; the after validator then refuses
``self.data_parallel_size <= 1 and self.data_parallel_external_lb``. Where the guard is
exact (each of its conjuncts read only the launch's values where it was tested) and the
value is known, the test also holds as ``GUARD and TEST[field := VALUE]``: a second check.
A value read from ``envs.NAME`` is the registry's default (vllm/envs.py), which holds only
when the environment does not set ``NAME``: the check names it (``env``), and a finding
from it says so.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

Noted = tuple[ast.expr, ast.Constant, tuple[str, ...]]  # (exact guard, value, env names read)
_MAX_GUARD = 600  # a longer exact guard is not kept


def noted(
    stars: dict[int, tuple[ast.expr, ast.expr | None]],
    guards: list[ast.expr],
    value: ast.expr | None,
    env: dict[str, Any],
) -> Noted | None:
    """The assignment's exact guard over the launch's values and its known value, or None."""
    known = _value(value, env)
    if known is None:
        return None
    for guard in guards:
        star = stars.get(id(guard))
        if star is None or star[0] is not guard or star[1] is None:
            return None
        if ast.unparse(star[1]) != ast.unparse(guard):
            return None  # over-approximated: not exact
    bound: ast.expr = (
        ast.Constant(True)
        if not guards
        else guards[0]
        if len(guards) == 1
        else ast.BoolOp(ast.And(), list(guards))
    )
    if len(ast.unparse(bound)) > _MAX_GUARD:
        return None
    return bound, known[0], known[1]


def _value(
    value: ast.expr | None, env: dict[str, Any]
) -> tuple[ast.Constant, tuple[str, ...]] | None:
    if isinstance(value, ast.Constant):
        return value, ()
    if (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == "envs"
    ):
        entry = env.get(value.attr) or {}
        default = entry.get("default")
        if default is None:
            return None
        try:
            typed = {"int": int, "str": str}[entry.get("type", "")](default)
        except (KeyError, ValueError):
            return None
        return ast.Constant(typed), (value.attr,)
    return None


def alternative(
    test: ast.expr,
    changed: list[str],
    bounds: dict[str, list[Any]],
    values: dict[str, list[Noted | None]],
    rest: ast.expr | None,
) -> tuple[ast.expr, tuple[str, ...], str, ast.Constant] | None:
    """(``GUARD and TEST[field := VALUE] and rest``, env names, field, VALUE), for a test whose one changed path was
    assigned once, under an exact guard, a known value (``rest``: the other paths it reads
    are unchanged)."""
    if len(changed) != 1 or rest is None:
        return None
    path = changed[0]
    notes = values.get(path) or []
    if len(bounds.get(path) or []) != 1 or len(notes) != 1 or notes[0] is None:
        return None
    guard, value, env = notes[0]
    replaced = _Replace("self." + path, value)
    out = replaced.visit(copy.deepcopy(test))
    if replaced.below:
        return None  # the test reads inside the path (self.x.y): not a plain value
    parts = [guard, out] + ([] if isinstance(rest, ast.Constant) and rest.value is True else [rest])
    return ast.BoolOp(ast.And(), parts), env, path, value


class _Replace(ast.NodeTransformer):
    def __init__(self, chain: str, value: ast.Constant):
        self.chain, self.value, self.below = chain, value, False

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        text = ast.unparse(node)
        if text == self.chain:
            return copy.deepcopy(self.value)
        if text.startswith(self.chain + "."):
            self.below = True
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if ast.unparse(node.value) == self.chain:
            self.below = True
        return self.generic_visit(node)
