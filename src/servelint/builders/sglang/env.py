"""SGLang environment variables, statically from ``sglang/srt/environ.py``.

* ``class Envs``: ``NAME = EnvBool(...)``/``EnvInt``/``EnvStr``/``EnvFloat``/``EnvJSON``/
  ``EnvTuple`` and ``Env*WithAlias(default, deprecated_name=OLD)`` (OLD still honoured).
* Deprecations: ``_DEPRECATED_ENVS = {OLD: _DeprecatedEnv(replacement=..., note=...)}``,
  ``_print_deprecated_env(OLD, NEW)``, ``_warn_deprecated_env_to_cli_flag(OLD, hint)`` and
  ``{OLD: NEW}`` dicts iterated by the conversion function; plus the blanket ``SGL_*`` ->
  ``SGLANG_*`` rewrite.
* SGLang never warns about an unknown ``SGLANG_*`` name: ``unknown_warning`` is false.
Names read elsewhere with a literal (``get_bool_env_var("SGLANG_X")``, ``os.getenv``) but not
registered go to ``read_unregistered`` (the only source for releases without ``environ.py``).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from servelint.builders.static_eval import UNKNOWN, Evaluator
from servelint.builders.wheel import WheelSource

ENVIRON = "sglang/srt/environ.py"
_TYPES = {
    "EnvBool": "bool",
    "EnvInt": "int",
    "EnvFloat": "float",
    "EnvStr": "str",
    "EnvJSON": "json",
    "EnvTuple": "tuple",
}
_READ = re.compile(
    r"(?:getenv|environ\.get|environ\[|get_bool_env_var|get_int_env_var|get_float_env_var|"
    r"get_str_env_var|environ\.setdefault|in os\.environ)\(?\s*[\"']((?:SGLANG|SGL)_[A-Z0-9_]+)[\"']"
)


def _env_type(cls_name: str) -> str:
    base = cls_name.replace("WithAlias", "")
    return _TYPES.get(base, "other")


def _bool_values(tree: ast.Module) -> list[str] | None:
    """Accepted spellings in ``EnvBool.parse`` (compared after ``.lower()``)."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "EnvBool":
            vals = [
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and len(c.value) <= 5
            ]
            return sorted(set(vals)) or None
    return None


def _entry(type_: str, default: Any, line: int, **extra: Any) -> dict[str, Any]:
    marker = isinstance(default, tuple) and default[:1] in (("class",), ("module",), ("function",))
    if callable(default) or default is UNKNOWN or marker:
        default_text = None  # computed at run time: not knowable statically
    else:
        default_text = None if default is None else str(default)
    return {
        "type": type_,
        "default": default_text,
        "choices": None,
        "case_sensitive": True,
        "source": f"{ENVIRON}:{line}",
        "deprecated": "",
        "replacement": "",
        **extra,
    }


def extract(src: WheelSource, profile: dict) -> dict:
    registry: dict[str, dict[str, Any]] = {}
    removed: dict[str, str] = {}
    prefix_rewrite = None
    if src.exists(ENVIRON):
        ev = Evaluator(src)
        tree = src.parse(ENVIRON)
        bool_values = _bool_values(tree)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "Envs":
                _registry_from_class(ev, node, registry, bool_values)
        _deprecations(ev, tree, registry, removed)
        if re.search(r"startswith\(\s*\"SGL_\"\s*\)", src.read(ENVIRON)):
            prefix_rewrite = {"from": "SGL_", "to": "SGLANG_", "warns": True, "source": ENVIRON}
    read = set()
    for name in src.names:
        if name.endswith(".py") and name.startswith("sglang/"):
            text = src.read(name)
            if "SGL" in text:
                read.update(_READ.findall(text))
    unregistered = sorted(n for n in read if n not in registry and n not in removed)
    return {
        "env": {
            "registry": registry,
            "read_unregistered": unregistered,
            "unknown_warning": False,
            "removed_hints": removed,
            "prefix_rewrite": prefix_rewrite,
            "registry_source": ENVIRON if src.exists(ENVIRON) else None,
        }
    }


def _registry_from_class(
    ev: Evaluator, cls: ast.ClassDef, registry: dict, bool_values: list[str] | None
) -> None:
    for st in cls.body:
        if not (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and isinstance(st.value, ast.Call)
        ):
            continue
        func = st.value.func
        cls_name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if not cls_name.startswith("Env"):
            continue
        name = st.targets[0].id
        type_ = _env_type(cls_name)
        default = ev.eval(st.value.args[0], "sglang.srt.environ") if st.value.args else None
        extra = {"values": bool_values} if type_ == "bool" and bool_values else {}
        registry[name] = _entry(type_, default, st.lineno, **extra)
        for kw in st.value.keywords:
            if kw.arg == "deprecated_name":
                old = ev.eval(kw.value, "sglang.srt.environ")
                if isinstance(old, str):
                    registry[old] = _entry(type_, default, st.lineno, **extra)
                    registry[old].update(
                        deprecated=f"Use '{name}' instead.", replacement=name, alias_of=name
                    )


def _deprecations(ev: Evaluator, tree: ast.Module, registry: dict, removed: dict) -> None:
    mod = "sglang.srt.environ"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.Dict)
            and any(
                isinstance(t, ast.Name) and t.id == "_DEPRECATED_ENVS"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ):
            for k, v in zip(node.value.keys, node.value.values, strict=True):
                old = ev.eval(k, mod) if k is not None else None
                if not isinstance(old, str) or not isinstance(v, ast.Call):
                    continue
                kws = {kw.arg: ev.eval(kw.value, mod) for kw in v.keywords if kw.arg}
                repl = kws.get("replacement") or (ev.eval(v.args[0], mod) if v.args else None)
                note = kws.get("note") if isinstance(kws.get("note"), str) else ""
                _record(
                    registry, removed, old, repl if isinstance(repl, str) else None, note, k.lineno
                )  # type: ignore[union-attr]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"_print_deprecated_env", "_warn_deprecated_env_to_cli_flag"}
        ):
            args = [ev.eval(a, mod) for a in node.args]
            if not args or not isinstance(args[0], str):
                continue
            second = args[1] if len(args) > 1 and isinstance(args[1], str) else None
            if node.func.id == "_print_deprecated_env":
                _record(registry, removed, args[0], second, "", node.lineno)
            else:
                _record(registry, removed, args[0], None, second or "", node.lineno)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Dict)
            and any(
                isinstance(t, ast.Name) and t.id.startswith("_deprecated") for t in node.targets
            )
        ):
            for k, v in zip(node.value.keys, node.value.values, strict=True):
                old, new = ev.eval(k, mod), ev.eval(v, mod)
                if isinstance(old, str) and isinstance(new, str):
                    _record(registry, removed, old, new, "value conversion may apply", node.lineno)


def _record(
    registry: dict, removed: dict, old: str, replacement: str | None, note: str, line: int
) -> None:
    if replacement:
        # forwarded: the old name still takes effect through the replacement
        entry = dict(registry.get(replacement) or _entry("str", None, line))
        entry.update(
            source=f"{ENVIRON}:{line}",
            replacement=replacement,
            alias_of=replacement,
            deprecated=(f"Use {replacement} instead. {note}").strip(),
        )
        registry.setdefault(old, entry)
    else:
        if old in registry:  # still registered (read), but the release warns
            registry[old]["deprecated"] = note or "deprecated"
        else:
            removed[old] = note or "deprecated; ignored"
