"""Environment variables a TensorRT-LLM release reads, from every module of the package.

TensorRT-LLM has no central registry: modules call ``os.environ.get("X")``, ``os.getenv("X")``,
``os.environ["X"]`` or test ``"X" in os.environ``. Each direct read is recorded with its
location. Names reach reads through variables and enums too (``LlmLauncherEnvs``), so every
string constant that looks like one of the engine's variable names (``TRTLLM_*``, ``TLLM_*``)
is kept as "mentioned": a launch variable neither read nor mentioned is one no code of the
release looks at.
"""

from __future__ import annotations

import ast
import re
from typing import Any

PREFIXES = ("TRTLLM_", "TLLM_")
_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")


def _environ(node: ast.expr) -> bool:
    """``os.environ`` (or a bare ``environ`` imported from os)."""
    if isinstance(node, ast.Attribute) and node.attr == "environ":
        return isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id == "environ"


def _read_name(node: ast.AST) -> str | None:
    """The variable name a read of the environment names, if it is a literal."""
    key: ast.expr | None = None
    if isinstance(node, ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in {"get", "setdefault"}
            and _environ(func.value)
            and node.args
        ):
            key = node.args[0]
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "getenv"
            and isinstance(func.value, ast.Name)
            and func.value.id == "os"
            and node.args
        ):
            key = node.args[0]
    elif (
        isinstance(node, ast.Subscript) and _environ(node.value) and isinstance(node.ctx, ast.Load)
    ):
        key = node.slice
    elif (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and _environ(node.comparators[0])
    ):
        key = node.left
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    return None


def extract(src: Any) -> dict[str, Any]:
    reads: dict[str, list[str]] = {}
    mentioned: set[str] = set()
    for path in src.glob("tensorrt_llm/*.py"):  # fnmatch: * crosses directories
        try:
            tree = src.parse(path)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            name = _read_name(node)
            if name is not None:
                reads.setdefault(name, []).append(f"{path}:{node.lineno}")  # type: ignore[attr-defined]
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith(PREFIXES)
                and _NAME.match(node.value)
            ):
                mentioned.add(node.value)
    reads = {k: sorted(set(v))[:5] for k, v in sorted(reads.items())}
    return {"prefixes": list(PREFIXES), "reads": reads, "mentioned": sorted(mentioned - set(reads))}
