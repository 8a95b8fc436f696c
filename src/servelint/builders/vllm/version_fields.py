"""The ``version_fields`` profile section: config fields whose ``field_validator`` parses the
value as a version with ``packaging.version`` (``parse(value)`` / ``Version(value)``, e.g.
ObservabilityConfig.show_hidden_metrics_for_version, vllm/config/observability.py), so a
text that is no PEP 440 version is refused (``InvalidVersion: Invalid version: 'none'``)
when the engine config is built.

Only a call whose name the module imports from ``packaging.version`` counts, on the
validator's value, run unconditionally or under ``if value is not None`` / ``if value``.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.vllm.facts_common import (
    config_classes_with,
    pydantic_validators,
    ref,
)
from servelint.builders.wheel import WheelSource

_PARSERS = frozenset({"parse", "Version"})


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path, cls in config_classes_with(src, "packaging.version"):
        tree = src.parse(path)
        names = _version_imports(tree)
        if not names:
            continue
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef):
                continue
            for deco, mode, fields in pydantic_validators(method):
                if deco != "field_validator" or mode not in ("after", "plain"):
                    continue
                found = _parse_call(method, names)
                if found is not None:
                    call, skips_empty = found
                    for name in fields:
                        out.setdefault(cls.name, {})[name] = {
                            "source": ref(path, call),
                            "skips_empty": skips_empty,
                        }
    return {"version_fields": dict(sorted(out.items()))} if out else {}


def _version_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the ``packaging.version`` function or class it is."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "packaging.version":
            for alias in node.names:
                if alias.name in _PARSERS:
                    out[alias.asname or alias.name] = alias.name
    return out


def _parse_call(method: ast.FunctionDef, names: dict[str, str]) -> tuple[ast.Call, bool] | None:
    """The ``parse(value)`` the validator always runs on a value that is not None, and
    whether its guard (``if value:``) skips the empty text."""
    args = method.args.args
    if len(args) < 2:
        return None
    return _in_body(method.body, args[1].arg, names, False)


def _in_body(
    body: list[ast.stmt], param: str, names: dict[str, str], skips_empty: bool
) -> tuple[ast.Call, bool] | None:
    for st in body:
        value = getattr(st, "value", None)
        if isinstance(st, ast.Expr | ast.Assign) and _is_parse(value, param, names):
            return value, skips_empty  # type: ignore[return-value]
        guard = _guard(st.test, param) if isinstance(st, ast.If) and not st.orelse else None
        if guard is not None:
            found = _in_body(st.body, param, names, skips_empty or guard)  # type: ignore[attr-defined]
            if found is not None:
                return found
        if isinstance(st, ast.If | ast.Return | ast.Raise | ast.Try | ast.For | ast.While):
            return None  # what follows may not run
    return None


def _is_parse(node: ast.expr, param: str, names: dict[str, str]) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in names
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == param
    )


def _guard(test: ast.expr, param: str) -> bool | None:
    """``if value is not None`` (False: the empty text is parsed), ``if value`` (True: it is
    skipped), else None."""
    text = ast.unparse(test)
    return {f"{param} is not None": False, param: True}.get(text)
