"""The ``env`` profile section: vLLM's env-var registry (``vllm/envs.py``) and what else reads env.

Types come from the shape of each registry entry (``bool(int(os.getenv(...)))``,
``env_with_choices(...)``, ``deprecated_env(...)`` …); deprecations and replacement hints only
where the release's own code states them.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import (
    files_with,
    lines_with,
    module_consts,
    parse,
    ref,
    str_list,
    text_of,
    walk_lines,
)
from servelint.builders.wheel import WheelSource

ENVS = "vllm/envs.py"
_ENV_NAME = re.compile(r"^VLLM_[A-Z0-9_]+$")
_GETTERS = {"os.getenv", "os.environ.get", "getenv", "environ.get"}
_CHOICE_FACTORIES = {"env_with_choices": "str", "env_list_with_choices": "list",
                     "env_set_with_choices": "set"}


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    if not src.exists(ENVS):
        return {}
    tree = src.parse(ENVS)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    consts = module_consts(tree)
    registry: dict[str, dict[str, Any]] = {}
    for key, value in _registry_items(tree):
        registry[key.value] = _describe(value, funcs, consts) | {"source": ref(ENVS, key)}
    _add_call_deprecations(src, registry)
    unregistered, hints = _scan_reads(src, registry)
    text = src.read(ENVS)
    return {"env": {
        "registry": registry,
        "read_unregistered": sorted(unregistered),
        "unknown_warning": "def validate_environ" in text
        and "Unknown vLLM environment variable" in text,
        "removed_hints": hints,
    }}


def _registry_items(tree: ast.Module) -> list[tuple[ast.Constant, ast.AST]]:
    items: list[tuple[ast.Constant, ast.AST]] = []
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "environment_variables" \
                and isinstance(getattr(node, "value", None), ast.Dict):
            for k, v in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    items.append((k, v))
        # environment_variables["X"] = ... added after the literal
        if isinstance(node, ast.Assign) and isinstance(target, ast.Subscript) \
                and dotted(target.value) == "environment_variables" \
                and isinstance(target.slice, ast.Constant):
            items.append((target.slice, node.value))
    return items


def _describe(value: ast.AST, funcs: dict[str, ast.FunctionDef],
              consts: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "other", "default": None, "choices": None,
                             "case_sensitive": True, "deprecated": "", "replacement": ""}
    if isinstance(value, ast.Call) and dotted(value.func) == "deprecated_env" \
            and len(value.args) >= 4:
        removal = text_of(value.args[1], consts) or ""
        replacement = text_of(value.args[2], consts) or ""
        inner = _describe(value.args[3], funcs, consts)
        inner["deprecated"] = f"deprecated, will be removed in {removal}. {replacement}".strip()
        inner["replacement"] = replacement
        return inner
    if isinstance(value, ast.Call) and dotted(value.func) in _CHOICE_FACTORIES:
        entry["type"] = _CHOICE_FACTORIES[dotted(value.func)]
        args = list(value.args) + [None] * 3
        kw = {k.arg: k.value for k in value.keywords}
        default = kw.get("default", args[1])
        choices = kw.get("choices", args[2])
        if isinstance(default, ast.Constant):
            entry["default"] = None if default.value is None else str(default.value)
        elif str_list(default) is not None:
            entry["default"] = ",".join(str_list(default) or [])
        entry["choices"] = str_list(choices)  # None when computed lazily
        sensitive = kw.get("case_sensitive", value.args[3] if len(value.args) > 3 else None)
        if isinstance(sensitive, ast.Constant):
            entry["case_sensitive"] = bool(sensitive.value)
        return entry
    body = value.body if isinstance(value, ast.Lambda) else None
    if body is None and isinstance(value, ast.Name) and value.id in funcs:
        entry.update(_deprecation_in_function(funcs[value.id], consts))
        return entry
    if body is None:
        return entry
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) \
            and body.func.id in funcs and not body.args:
        entry.update(_deprecation_in_function(funcs[body.func.id], consts))
    kind, default = _shape(body)
    entry["type"] = kind
    entry["default"] = default
    return entry


def _shape(body: ast.AST) -> tuple[str, str | None]:
    """(type, static default) of a registry lambda body."""
    calls = [n for n in ast.walk(body) if isinstance(n, ast.Call)]
    getter = next((c for c in calls if dotted(c.func) in _GETTERS), None)
    raw = None
    if getter is not None and len(getter.args) >= 2 and isinstance(getter.args[1], ast.Constant):
        raw = getter.args[1].value
    outer = dotted(body.func) if isinstance(body, ast.Call) else ""
    inner = dotted(body.args[0].func) if isinstance(body, ast.Call) and body.args \
        and isinstance(body.args[0], ast.Call) else ""
    if outer == "bool" and inner == "int" or outer == "maybe_convert_bool":
        if raw is None:
            return "bool", None
        try:
            return "bool", str(bool(int(raw)))
        except (TypeError, ValueError):
            return "bool", None
    if isinstance(body, ast.Compare) and isinstance(body.ops[0], ast.In | ast.Eq):
        return "bool", "False" if raw in (None, "", "0", "false") else None
    if outer in ("int", "maybe_convert_int"):
        return "int", None if raw is None else str(raw)
    if outer == "float":
        return "float", None if raw is None else str(raw)
    if getter is not None and (body is getter or outer in ("", "str") or
                               isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute)
                               and body.func.attr in ("lower", "upper", "strip")):
        return "str", None if raw is None else str(raw)
    return "other", None


def _deprecation_in_function(func: ast.FunctionDef, consts: dict[str, str]) -> dict[str, str]:
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and node.args:
            msg = text_of(node.args[0], consts) or ""
            if "deprecated" in msg.lower():
                use = re.search(r"[Uu]se (\S+) instead", msg)
                return {"deprecated": msg, "replacement": use.group(1) if use else ""}
    return {}


def _add_call_deprecations(src: WheelSource, registry: dict[str, dict[str, Any]]) -> None:
    """Calls like ``get_from_deprecated_env_if_set("VLLM_X", "v0.27", "--flag")``: any function
    whose body warns "deprecated", called with a registered env name as a literal argument."""
    deprecating: dict[str, tuple[ast.FunctionDef, str]] = {}
    for path in files_with(src, "deprecated"):
        tree = parse(src, path)
        if tree is None:
            continue
        consts = module_consts(tree)
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef) and func.args.args:
                warn = _deprecation_in_function(func, consts)
                params = [a.arg for a in func.args.args]
                if warn and any("env" in p for p in params):
                    deprecating.setdefault(func.name, (func, warn["deprecated"]))
    if not deprecating:
        return
    for path in files_with(src, *deprecating):
        tree = parse(src, path)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else dotted(node.func)
            if name not in deprecating:
                continue
            lits = [a.value for a in node.args if isinstance(a, ast.Constant)
                    and isinstance(a.value, str)]
            lits += [k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)
                     and isinstance(k.value.value, str)]
            envs = [s for s in lits if _ENV_NAME.match(s) and s in registry]
            if not envs:
                continue
            func, template = deprecating[name]
            rendered = _render(func, node, template)
            others = [s for s in lits if s not in envs and not re.match(r"^v?\d", s)]
            entry = registry[envs[0]]
            if not entry["deprecated"]:
                entry["deprecated"] = rendered
                entry["replacement"] = others[-1] if others else ""
                entry["deprecated_source"] = ref(path, node)


def _render(func: ast.FunctionDef, call: ast.Call, template: str) -> str:
    """Fill a %s-style deprecation template with the literal arguments of ``call``."""
    bound: dict[str, str] = {}
    params = [a.arg for a in func.args.args if a.arg not in ("self", "cls")]
    for p, a in zip(params, call.args, strict=False):
        if isinstance(a, ast.Constant):
            bound[p] = str(a.value)
    for k in call.keywords:
        if k.arg and isinstance(k.value, ast.Constant):
            bound[k.arg] = str(k.value.value)
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and node.args and text_of(node.args[0]) == template:
            values = [bound.get(a.id, "…") if isinstance(a, ast.Name) else "…"
                      for a in node.args[1:]]
            try:
                return template % tuple(values) if "%" in template else template
            except (TypeError, ValueError):
                return template
    return template


def _scan_reads(src: WheelSource, registry: dict[str, Any]) -> tuple[set[str], dict[str, str]]:
    """VLLM_* names the package reads from the environment without registering them, and
    replacement hints the code states for such names."""
    unregistered: set[str] = set()
    hints: dict[str, str] = {}
    for path in files_with(src, '"VLLM_', "'VLLM_"):
        text = src.read(path)
        if "environ" not in text and "getenv" not in text:
            continue
        tree = parse(src, path)
        if tree is None:
            continue
        for node, _ in walk_lines(tree, lines_with(text, "VLLM_")):
            name = _env_read(node)
            if name and name not in registry:
                unregistered.add(name)
        hints.update(_dict_hints(tree, registry, unregistered))
    return unregistered, hints


def _env_read(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and dotted(node.func) in _GETTERS and node.args:
        arg = node.args[0]
    elif isinstance(node, ast.Subscript) and dotted(node.value) in ("os.environ", "environ") \
            and isinstance(node.ctx, ast.Load):
        arg = node.slice
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and isinstance(node.ops[0], ast.In | ast.NotIn) \
            and dotted(node.comparators[0]) in ("os.environ", "environ"):
        arg = node.left
    else:
        return None
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _ENV_NAME.match(arg.value):
        return arg.value
    return None


def _dict_hints(tree: ast.Module, registry: dict[str, Any], unregistered: set[str]
                ) -> dict[str, str]:
    """Module dicts {"VLLM_OLD": "new"} iterated to warn "deprecated"/"removed" with a
    replacement: the warning text rendered for each key."""
    out: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign | ast.AnnAssign)
                and isinstance(node.value, ast.Dict)):
            continue
        pairs = [(k.value, v.value) for k, v in zip(node.value.keys, node.value.values,
                                                     strict=True)
                 if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
                 and isinstance(k.value, str) and isinstance(v.value, str)
                 and _ENV_NAME.match(k.value)]
        if not pairs:
            continue
        template = _warning_template(tree)
        if not template:
            continue
        for old, new in pairs:
            if old in registry:
                continue
            unregistered.add(old)
            try:
                out[old] = template % (old, new) if template.count("%") == 2 else new
            except (TypeError, ValueError):
                out[old] = new
    return out


def _warning_template(tree: ast.Module) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr.startswith(("warn", "warning")) and node.args:
            msg = text_of(node.args[0]) or ""
            low = msg.lower()
            if ("deprecated" in low or "removed" in low) and ("instead" in low or "use" in low):
                return msg
    return ""
