"""Whether pydantic validates a config class's fields when it is built.

A class is validated when it is a pydantic dataclass (``@dataclass`` imported from
``pydantic.dataclasses``, directly or through a decorator of the wheel that calls it, as
0.21's ``config`` does) or a ``pydantic.BaseModel``, itself or through a base. A stdlib
dataclass takes any value. The fact is read from the imports of the class's own module.
"""

from __future__ import annotations

import ast

from servelint.builders.astutil import Definition, ModuleIndex

_PYDANTIC_DATACLASS = ("pydantic.dataclasses", "dataclass")
_BASE_MODEL = ("pydantic", "BaseModel")


def pydantic_validated(index: ModuleIndex, d: Definition, _depth: int = 0) -> bool:
    node = d.node
    if not isinstance(node, ast.ClassDef) or _depth > 10:
        return False
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if _names(index, d.module, target, _PYDANTIC_DATACLASS) or _calls_pydantic(
            index, d.module, target
        ):
            return True
    for base in node.bases:
        if _names(index, d.module, base, _BASE_MODEL):
            return True
    return any(pydantic_validated(index, b, _depth + 1) for b in index.bases(d))


def _names(index: ModuleIndex, module: str, node: ast.AST, wanted: tuple[str, str]) -> bool:
    """``node`` (a Name or a dotted Attribute) is ``wanted`` = (module, name) as imported
    in ``module``."""
    text = ast.unparse(node)
    if text == ".".join(wanted):
        return True
    info = index.info(module)
    if info is None:
        return False
    if isinstance(node, ast.Name):
        return info.imports.get(node.id) == wanted
    head, _, attr = text.rpartition(".")
    imported = info.imports.get(head.split(".")[0])
    return (
        attr == wanted[1]
        and imported is not None
        and imported[1] is None
        and (imported[0] + head[len(head.split(".")[0]) :]) == wanted[0]
    )


def _calls_pydantic(index: ModuleIndex, module: str, target: ast.AST) -> bool:
    """A decorator of the wheel whose body calls pydantic's dataclass (vLLM ``config``)."""
    fn = index.resolve_expr(module, target)
    if fn is None or fn.kind != "function":
        return False
    return any(
        isinstance(sub, ast.Call) and _names(index, fn.module, sub.func, _PYDANTIC_DATACLASS)
        for sub in ast.walk(fn.node)
    )
