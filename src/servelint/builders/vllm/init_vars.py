"""``InitVar`` fields of a config dataclass: constructor arguments that pydantic validates
against their annotation when the class is built, then hands to ``__post_init__`` (vLLM
``ModelConfig.limit_mm_per_prompt: InitVar[dict[str, int] | None]``, passed on to
MultiModalConfig only for multimodal models, but validated for every model)."""

from __future__ import annotations

import ast

from servelint.builders.astutil import Definition, ModuleIndex, docstring_after
from servelint.builders.vllm.parser_types import FieldInfo


def init_var_fields(index: ModuleIndex, d: Definition, _depth: int = 0) -> list[FieldInfo]:
    """The ``name: InitVar[...] = default`` statements of the class and its bases."""
    out: dict[str, FieldInfo] = {}
    if _depth < 10:
        for base in reversed(index.bases(d)):
            out.update((f.name, f) for f in init_var_fields(index, base, _depth + 1))
    body = d.node.body  # type: ignore[attr-defined]
    path = index.file_of(d.module) or d.path
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if (
            not ast.unparse(stmt.annotation)
            .strip("'\"")
            .startswith(("InitVar[", "dataclasses.InitVar["))
        ):
            continue
        out[stmt.target.id] = FieldInfo(
            stmt.target.id,
            stmt.annotation,
            d.module,
            stmt.value,
            stmt.lineno,
            path,
            docstring_after(body, i),
            d.name,
        )
    return list(out.values())
