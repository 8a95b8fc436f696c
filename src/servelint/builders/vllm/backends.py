"""The ``backends`` profile section: hardware limits that attention backend classes declare.

For every member of the attention / MLA-prefill backend enums, the class its value names is
read for ``supports_compute_capability`` (``capability.major == 10``, ``major in [9, 10]``,
``capability >= DeviceCapability(8, 0)`` …), ``get_min_capability`` and
``supported_kv_cache_dtypes`` (own class first, then its bases in the wheel).
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.vllm.facts_common import find_def, module_file, ref, str_list
from servelint.builders.vllm.facts_registries import value_sets
from servelint.builders.wheel import WheelSource

_SETS = {"attention_backend": "", "mla_prefill_backend": "mla_prefill:"}


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    sets = value_sets(src)
    out: dict[str, Any] = {}
    for set_name, prefix in _SETS.items():
        vs = sets.get(set_name)
        if vs is None:
            continue
        qualnames = _qualnames(src, vs.source)
        if not qualnames and set_name == "attention_backend":  # <= 0.11: enum of auto() names
            qualnames = _by_get_name(src)
        for member in vs.values:
            qual = qualnames.get(member)
            facts = _class_facts(src, qual) if qual else None
            if facts:
                out[prefix + member] = facts
    return {"backends": out}


def _qualnames(src: WheelSource, source: str) -> dict[str, str]:
    """Enum member -> 'pkg.module.Class' from the enum class at ``source``."""
    path, line = source.rsplit(":", 1)
    tree = src.parse(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno == int(line):
            out = {}
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                    from servelint.builders.vllm.facts_common import text_of
                    value = text_of(stmt.value)
                    if value and "." in value:
                        out[stmt.targets[0].id] = value
            return out
    return {}


def _by_get_name(src: WheelSource) -> dict[str, str]:
    """Backend name -> class, from classes whose ``get_name()`` returns a constant."""
    from servelint.builders.vllm.facts_common import file_module, files_with, parse
    out: dict[str, str] = {}
    for path in files_with(src, "def get_name("):
        if "attention/backends" not in path:
            continue
        tree = parse(src, path)
        for cls in tree.body if tree else []:
            if not isinstance(cls, ast.ClassDef):
                continue
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "get_name":
                    ret = next((n for n in ast.walk(fn) if isinstance(n, ast.Return)), None)
                    if ret and isinstance(ret.value, ast.Constant) \
                            and isinstance(ret.value.value, str):
                        out.setdefault(ret.value.value, f"{file_module(path)}.{cls.name}")
    return out


def _class_facts(src: WheelSource, qual: str) -> dict[str, Any] | None:
    mod, _, cls_name = qual.rpartition(".")
    path = module_file(src, mod)
    if not path:
        return None
    cls = next((n for n in src.parse(path).body
                if isinstance(n, ast.ClassDef) and n.name == cls_name), None)
    if cls is None:
        return None
    facts: dict[str, Any] = {"class": qual, "source": ref(path, cls)}
    chain = _with_bases(src, path, cls)
    for cpath, c in chain:
        cc = _capability(cpath, c)
        if cc:
            facts["compute_capability"] = cc
            break
    for cpath, c in chain:
        dtypes = _kv_dtypes(c)
        if dtypes is not None:
            facts["kv_cache_dtypes"] = dtypes
            facts["kv_cache_dtypes_source"] = ref(cpath, c)
            break
    return facts


def _with_bases(src: WheelSource, path: str, cls: ast.ClassDef, depth: int = 0
                ) -> list[tuple[str, ast.ClassDef]]:
    chain = [(path, cls)]
    if depth >= 3:
        return chain
    for base in cls.bases:
        name = base.value.id if isinstance(base, ast.Subscript) and isinstance(
            base.value, ast.Name) else (base.id if isinstance(base, ast.Name) else None)
        if not name or name in ("Enum", "object", "ABC", "Generic"):
            continue
        found = find_def(src, name, "attention")
        if found and isinstance(found[1], ast.ClassDef):
            chain += _with_bases(src, found[0], found[1], depth + 1)
    return chain


def _capability(path: str, cls: ast.ClassDef) -> dict[str, Any] | None:
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        if fn.name == "supports_compute_capability":
            rets = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
            if len(rets) != 1:
                return {"expr": ast.unparse(fn), "derived": False, "source": ref(path, fn)}
            return _cc_expr(rets[0].value) | {"source": ref(path, fn)}
        if fn.name == "get_min_capability":
            ret = next((n for n in ast.walk(fn) if isinstance(n, ast.Return)), None)
            if ret and isinstance(ret.value, ast.Constant) and isinstance(ret.value.value, int):
                major, minor = divmod(ret.value.value, 10)
                return {"min": [major, minor], "source": ref(path, fn)}
    return None


def _cc_expr(expr: ast.AST) -> dict[str, Any]:
    """Structured form of a capability test; ``expr`` text when it is not a simple shape."""
    if isinstance(expr, ast.Constant) and expr.value is True:
        return {"any": True}
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left, op, right = expr.left, expr.ops[0], expr.comparators[0]
        if isinstance(left, ast.Attribute) and left.attr == "major":
            if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
                return {"majors": [right.value]}
            if isinstance(op, ast.In) and isinstance(right, ast.List | ast.Tuple | ast.Set):
                vals = [e.value for e in right.elts if isinstance(e, ast.Constant)]
                return {"majors": vals}
            if isinstance(op, ast.GtE) and isinstance(right, ast.Constant):
                return {"min": [right.value, 0]}
        if isinstance(op, ast.GtE) and isinstance(right, ast.Call) and len(right.args) == 2 \
                and all(isinstance(a, ast.Constant) for a in right.args):
            return {"min": [right.args[0].value, right.args[1].value]}
    return {"expr": ast.unparse(expr), "derived": False}


def _kv_dtypes(cls: ast.ClassDef) -> list[str] | None:
    for stmt in cls.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "supported_kv_cache_dtypes":
            return str_list(stmt.value)
    return None
