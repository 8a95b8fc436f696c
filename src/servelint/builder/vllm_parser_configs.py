"""Config dataclasses reachable through JSON / dotted ``vllm serve`` arguments."""

from __future__ import annotations

import ast
from typing import Any

from servelint.builder.astutil import Definition, ModuleIndex
from servelint.builder.vllm_parser_types import (
    Hint,
    TypeResolver,
    class_fields,
    default_text,
    type_text,
)

CONFIG_MODULES = ("vllm.config", "vllm.engine.arg_utils")


def _decorator_extra(index: ModuleIndex, d: Definition) -> str:
    """Unknown-key policy of a (pydantic) dataclass: forbid | allow | ignore."""
    node = d.node
    assert isinstance(node, ast.ClassDef)
    policy = None
    for dec in node.decorator_list:
        text = ast.unparse(dec)
        for word in ("forbid", "allow", "ignore"):
            if f"extra='{word}'" in text or f'extra="{word}"' in text:
                policy = word
        target = dec.func if isinstance(dec, ast.Call) else dec
        ref = index.resolve_expr(d.module, target)
        if policy is None and ref is not None and ref.kind == "function" and ref.name == "config":
            src = ast.unparse(ref.node)
            if "extra='forbid'" in src:
                policy = "forbid"
    if policy is None:
        for stmt in node.body:  # pydantic model_config = ConfigDict(extra=...)
            if isinstance(stmt, ast.Assign) and "model_config" in ast.unparse(stmt.targets[0]):
                for word in ("forbid", "allow", "ignore"):
                    if f"extra='{word}'" in ast.unparse(stmt.value):
                        policy = word
    if policy is None:
        for base in index.bases(d):
            inherited = _decorator_extra(index, base)
            if inherited != "ignore":
                return inherited
    return policy or "ignore"


def _field_config(hints: frozenset[Hint]) -> str | None:
    for h in hints:
        if h.kind == "dataclass":
            return h.name
    return None


def _literal_choices(hints: frozenset[Hint]) -> list[str] | None:
    lits = [h for h in hints if h.kind == "literal"]
    if not lits:
        for h in hints:  # list[Literal[...]]
            for sub in h.args:
                if isinstance(sub, frozenset):
                    lits.extend(x for x in sub if x.kind == "literal")
    if not lits:
        return None
    return [str(v) for h in lits for v in h.args]


def collect_configs(index: ModuleIndex, interp: Any, actions: list[dict[str, Any]]
                    ) -> dict[str, Any]:
    resolver: TypeResolver = interp.types
    roots: list[str] = []
    for act in actions:
        if act.get("json_dataclass"):
            roots.append(act["json_dataclass"])
    # JSON options typed as plain dicts in EngineArgs but validated as a config later
    vllm_config = index.find_class("VllmConfig", CONFIG_MODULES)
    if vllm_config is not None:
        vfields = {f.name: f for f in class_fields(index, vllm_config)}
        for act in actions:
            if act.get("type") == "json" and act["dest"] in vfields:
                f = vfields[act["dest"]]
                name = _field_config(resolver.hints(f.module, f.annotation))
                if name:
                    roots.append(name)
                    act.setdefault("json_config", name)
    out: dict[str, Any] = {}
    todo = list(dict.fromkeys(roots))
    while todo:
        name = todo.pop(0)
        if name in out:
            continue
        d = index.find_class(name, CONFIG_MODULES)
        if d is None:
            continue
        fields: dict[str, Any] = {}
        for f in class_fields(index, d):
            hints = resolver.hints(f.module, f.annotation)
            nested = _field_config(hints)
            if nested and nested not in out:
                todo.append(nested)
            fields[f.name] = {
                "type": type_text(f),
                "choices": _literal_choices(hints),
                "config": nested,
                "default": default_text(f.default),
                "late": None,
                "source": f"{f.path}:{f.line}",
            }
        out[name] = {
            "extra": _decorator_extra(index, d),
            "source": f"{index.file_of(d.module) or d.path}:{d.node.lineno}",  # type: ignore
            "fields": fields,
        }
    return out
