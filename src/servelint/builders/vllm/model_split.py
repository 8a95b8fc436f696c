"""Model-dependent validator tests: ``LAUNCH and MODEL`` where MODEL reads only the model's
own config (``not model_config.is_multimodal_model and self.default_mm_loras``).

The statement walker (condition_walk.py) keeps a test only when the argv alone decides it.
A test whose ``and`` operands split into a part the argv decides and a part that reads
nothing but the model object (the config class ``--model`` fills, reached as a local the
code got from a ``self.<method>()`` returning that class, or a field of that type) is kept
as a *model check*: the engine raises for the launch on every model where the model part
holds. The model part is kept as text, never evaluated.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from servelint.builders.vllm.condition_shapes import exact_path


@dataclass(frozen=True)
class ModelRoots:
    """What reads the model in one class's validators (all read from the wheel)."""

    model_class: str  # the config class --model fills (its ``field_of``)
    model_fields: frozenset[str]  # that class's fields a caller passes: the launch may set them
    model_methods: frozenset[str]  # methods of the walked class returning the model class
    self_fields: frozenset[str]  # fields of the walked class whose type is the model class
    # ``a.b``: a field ``b`` of the model class in the config class of the walked class's
    # field ``a`` (``speculative_config.target_model_config``)
    model_paths: frozenset[str] = frozenset()


def roots_for(
    profile: dict[str, Any], cls: str, methods: dict[str, ast.FunctionDef]
) -> ModelRoots | None:
    """The model roots of class ``cls``, or None when the profile names no model class."""
    actions = (profile.get("parser") or {}).get("actions") or []
    model_class = next((a.get("field_of") for a in actions if a.get("dest") == "model"), None)
    configs = profile.get("configs") or {}
    if not model_class or model_class not in configs:
        return None
    fields = configs.get(cls, {}).get("fields", {})
    paths = {
        f"{name}.{sub}"
        for name, f in fields.items()
        if f.get("config") in configs and f.get("config") != model_class
        for sub, g in configs[f["config"]].get("fields", {}).items()
        if g.get("config") == model_class
    }
    # a field the engine computes (``init=False``: hf_config) is the model's own
    model_fields = configs[model_class].get("fields", {})
    return ModelRoots(
        model_class,
        frozenset(n for n, f in model_fields.items() if f.get("init", True)),
        frozenset(n for n, m in methods.items() if _returns_class(m, model_class)),
        frozenset(n for n, f in fields.items() if _names_class(f.get("type") or "", model_class)),
        frozenset(paths),
    )


def _names_class(annotation: str, cls: str) -> bool:
    return cls in {p.strip().strip("'\"") for p in annotation.split("|")}


def _returns_class(method: ast.FunctionDef, cls: str) -> bool:
    return method.returns is not None and _names_class(ast.unparse(method.returns), cls)


def is_model_call(roots: ModelRoots | None, value: ast.expr | None) -> bool:
    """``self.create_model_config()``: a call of a method that returns the model class."""
    return (
        roots is not None
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "self"
        and value.func.attr in roots.model_methods
    )


def is_model_value(roots: ModelRoots | None, value: ast.expr | None) -> bool:
    """A model object: a call of a method returning the model class, a field of the model
    class's type (``self.model_config``) or a model path (``self.speculative_config.
    target_model_config``), as the value reads after the walk's locals are replaced."""
    if roots is None or value is None:
        return False
    if is_model_call(roots, value):
        return True
    path = exact_path(value)
    return path is not None and (path in roots.self_fields or path in roots.model_paths)


def launch_part(node: ast.expr, evaluable: Callable[[ast.expr], bool]) -> ast.expr | None:
    """A test over the launch's values that implies ``node`` (its ``or`` operands the argv
    decides; ``not (A and B)`` read as ``not A or not B``), or None. Only a sufficient
    condition: where it holds, ``node`` holds."""
    if evaluable(node):
        return node
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = node.operand
        if isinstance(inner, ast.BoolOp) and isinstance(inner.op, ast.And):
            node = ast.BoolOp(ast.Or(), [ast.UnaryOp(ast.Not(), v) for v in inner.values])
    if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
        return None
    kept = [v for v in node.values if evaluable(v)]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else ast.BoolOp(ast.Or(), kept)


def conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in conjuncts(v)]
    return [test]


def reads_only_model(node: ast.expr, roots: ModelRoots, names: set[str]) -> bool:
    """The expression reads the model object (one of ``names`` or a model-typed field) and
    nothing the launch sets."""
    found = False
    bound = {
        n.id
        for comp in ast.walk(node)
        if isinstance(comp, ast.comprehension)
        for n in ast.walk(comp.target)
        if isinstance(n, ast.Name)
    }
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            base = sub.value
            if isinstance(base, ast.Name) and base.id in names:
                if sub.attr in roots.model_fields:
                    return False  # a field of the model config: the launch may set it
                found = True
            elif isinstance(base, ast.Name) and base.id == "self":
                if sub.attr not in roots.self_fields:
                    return False
                found = True
            elif (
                isinstance(base, ast.Attribute)
                and isinstance(base.value, ast.Name)
                and base.value.id == "self"
                and base.attr in roots.self_fields
                and sub.attr in roots.model_fields
            ):
                return False
        elif isinstance(sub, ast.Name):
            if sub.id in names or sub.id in bound or sub.id == "self":
                continue
            if sub.id == "?" or not hasattr(builtins, sub.id):
                return False  # an unknown local or a module name: not the model's own
    return found
