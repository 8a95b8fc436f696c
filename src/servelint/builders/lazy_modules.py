"""Module proxies built at import time: ``me_quant = LazyLoader("model_executor", globals(),
"vllm.model_executor.layers.quantization")`` (vLLM ``config/speculative.py``).

The value is an instance of a ``types.ModuleType`` subclass whose ``__init__`` hands one of
its parameters to ``super().__init__(...)``, the module's name, and whose attribute lookups
import that module: ``me_quant.QuantizationMethods`` is that module's name. The class is read
from the wheel (which parameter names the module), never assumed from its name.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from servelint.builders.astutil import Definition, ModuleIndex


def proxied_module(index: ModuleIndex, value: Definition) -> str | None:
    """The wheel module a module-proxy value stands for, or None."""
    call = value.node
    if not isinstance(call, ast.Call):
        return None
    cls = index.resolve_expr(value.module, call.func)
    if cls is None or cls.kind != "class" or not _is_module_type(cls.node):
        return None
    param = _module_name_param(cls.node)
    if param is None:
        return None
    arg = _argument(call, *param)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and index.has_module(arg.value):
        return arg.value
    return None


def _is_module_type(node: ast.AST) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        ast.unparse(b) in {"types.ModuleType", "ModuleType"} for b in node.bases
    )


def _module_name_param(node: ast.ClassDef) -> tuple[int, str] | None:
    """(position after self, name) of the ``__init__`` parameter passed to
    ``super().__init__(name)`` (also as ``str(name)``)."""
    init = next(
        (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return None
    params = [a.arg for a in init.args.args][1:]
    for sub in ast.walk(init):
        if not (
            isinstance(sub, ast.Call) and ast.unparse(sub.func) == "super().__init__" and sub.args
        ):
            continue
        first = sub.args[0]
        if isinstance(first, ast.Call) and ast.unparse(first.func) == "str" and first.args:
            first = first.args[0]
        if isinstance(first, ast.Name) and first.id in params:
            return params.index(first.id), first.id
    return None


def _argument(call: ast.Call, position: int, name: str) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[position] if position < len(call.args) else None
