"""Environment variables a TensorRT-LLM release reads, from every module of the package.

TensorRT-LLM has no central registry: modules call ``os.environ.get("X")``, ``os.getenv("X")``,
``os.environ["X"]`` or test ``"X" in os.environ``. Each direct read is recorded with its
location. Names reach reads through variables and enums too (``LlmLauncherEnvs``), so every
string constant that looks like one of the engine's variable names (``TRTLLM_*``, ``TLLM_*``)
is kept as "mentioned": a launch variable neither read nor mentioned is one no code of the
release looks at. The compiled library (``libtensorrt_llm``, ``th_common``) reads more of
them through ``getenv``/``getEnv`` in its C++ sources: where the tree has ``cpp/``, every
string literal there that is such a name is mentioned too (with its first places); where it
has none (a wheel, a package-only tree) the facts are ``partial`` and say so.
"""

from __future__ import annotations

import ast
import hashlib
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
    native = src.native_sources() if hasattr(src, "native_sources") else []
    out: dict[str, Any] = {"prefixes": list(PREFIXES), "reads": reads}
    if native:
        out["native"] = _native(src, native)
    else:
        out["partial"] = (
            "no C++ sources in the tree: the variables the compiled library reads are not known"
        )
    named = set(out.get("native", {}).get("names", {}))
    out["mentioned"] = sorted((mentioned | named) - set(reads))
    return out


_NATIVE_NAME = re.compile(rb'"((?:TRTLLM|TLLM)_[A-Z0-9_]{2,})"')


def _native(src: Any, files: list[str]) -> dict[str, Any]:
    """Names in string literals of the C++ sources, each with its first places, and a digest
    over the files scanned."""
    names: dict[str, list[str]] = {}
    digest = hashlib.sha256()
    for path in files:
        data = src.read_native(path)
        digest.update(f"{path}\0{hashlib.sha256(data).hexdigest()}\n".encode())
        for m in _NATIVE_NAME.finditer(data):
            line = data.count(b"\n", 0, m.start()) + 1
            places = names.setdefault(m.group(1).decode(), [])
            if len(places) < 3:
                places.append(f"{path}:{line}")
    return {"files": len(files), "sha256": digest.hexdigest(), "names": dict(sorted(names.items()))}
