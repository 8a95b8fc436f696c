"""The ``late_values`` profile section: value sets the parser leaves open (or that reach the
engine through JSON config arguments) and the stage where the engine rejects other values.

Targets are found by code shape in ``EngineArgs``: a field whose default is ``Cfg.field`` or
whose annotation names the set's type is an option dest; a field typed as a config class (or
named after one) is a JSON prefix, giving ``prefix.field`` paths. Stage per target: argparse
``choices`` (a pure ``Literal`` annotation, or the parser section when present) -> ``parse``;
a JSON argument typed as the config dataclass is validated by pydantic at parse time too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import (
    class_fields,
    files_with,
    find_def,
    parse,
    per_wheel,
    py_files,
    text_of,
)
from servelint.builders.vllm.facts_registries import ValueSet, value_sets
from servelint.builders.wheel import WheelSource


@dataclass
class EngineFields:
    by_config_field: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)  # dest -> annotation text
    json_prefix: dict[str, tuple[str, str]] = field(default_factory=dict)  # Cfg -> (dest, stage)


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    fields = engine_fields(src)
    parser_choices = _parser_choices(profile)
    frontend = _frontend_option_text(src)
    out: dict[str, Any] = {}
    choices_flags = _flags_with_choices(src)
    for name, vs in value_sets(src).items():
        if vs.stage is None:  # no known rejection point (e.g. kv connectors): not a late check
            continue
        targets: dict[str, str | None] = {}
        for dest in _dests(vs, fields, frontend):
            targets[dest] = _dest_stage(src, vs, dest, fields, parser_choices, choices_flags)
        for cls, fname in vs.config_fields:
            if cls in fields.json_prefix:
                prefix, stage = fields.json_prefix[cls]
                typed = _typed_by_set(src, vs, cls, fname)
                targets[f"{prefix}.{fname}"] = "parse" if stage == "parse" and typed \
                    else vs.stage
        if not targets and vs.name != "attention_backend":
            continue
        stages = list(targets.values())
        main = stages[0] if stages else vs.stage
        entry: dict[str, Any] = {
            "values": vs.values, "targets": list(targets), "stage": main,
            "case_sensitive": vs.case_sensitive, "source": vs.source, "message": vs.message,
        }
        plugin = {"tool_call_parser": "tool_parser_plugin",
                  "reasoning_parser": "reasoning_parser_plugin"}.get(name)
        if plugin and (plugin in fields.annotations or f"--{plugin.replace('_', '-')}" in frontend):
            entry["extended_by"] = [plugin]  # a plugin file may register further names
        if vs.class_paths:  # "pkg.mod.Class" is imported: only names without a dot judged
            entry["class_paths"] = True
        if vs.registered_by:  # plugins may add values at run time: the set is the release's own
            entry["registered_by"] = vs.registered_by
        if vs.only_with:  # the engine checks the value only when these options are set
            entry["only_with"] = list(vs.only_with)
        guarded = _guarded_targets(src, vs, fields)
        if guarded:  # looked up only where a test over the object's fields holds
            entry["guarded"] = guarded
        conditional = _read_only_if(src, profile, list(targets))
        if conditional:  # e.g. a multimodal-config field: never read for a text-only model
            entry["only_if"] = conditional
        differing = {t: s for t, s in targets.items() if s != main}
        if differing:
            entry["target_stages"] = differing
        out[name] = entry
    if "quantization" in out:
        deprecated = _deprecated_quantization(src)
        if deprecated:
            out["quantization"]["deprecated"] = deprecated
    return {"late_values": out, "configs": _guarded_configs(src, profile.get("configs", {}))}


def _guarded_targets(src: WheelSource, vs: ValueSet, fields: EngineFields) -> dict[str, Any]:
    """``dest.field`` -> the guarded lookup of a config field filled from a JSON option
    (builder/guarded_lookups.py), with what EngineArgs changes on that object first."""
    from servelint.builders.vllm.engine_build import namespace_assigned
    from servelint.builders.vllm.guarded_lookups import changed_when

    out: dict[str, Any] = {}
    for lookup in vs.guarded:
        prefix = fields.json_prefix.get(lookup.cls, ("", ""))[0]
        if not prefix or prefix in namespace_assigned(src):
            continue
        changed = changed_when(src, prefix)
        if changed is not None:
            out[f"{prefix}.{lookup.field}"] = lookup.entry(changed)
    return out


def _guarded_configs(src: WheelSource, configs: dict[str, Any]) -> dict[str, Any]:
    """The config classes, each with ``only_if`` when the engine builds it under a condition
    (its values are then validated only for launches that meet it)."""
    out = {}
    for cls, spec in configs.items():
        guard = _construction_guard(src, cls)
        out[cls] = dict(spec, only_if={"test": guard[0], "source": guard[1]}) if guard else spec
    return out


def _read_only_if(src: WheelSource, profile: dict[str, Any], targets: list[str]
                  ) -> dict[str, dict[str, str]]:
    """dest -> the condition under which the engine builds the config class holding that
    option (``field_of``), when its only construction sits inside an ``if``: the value is
    checked only for launches that meet it (e.g. ``MultiModalConfig(...)`` under ``if
    self._model_info.supports_multimodal``)."""
    field_of = {a.get("dest"): a.get("field_of") for a in profile.get("parser", {})
                .get("actions", []) if a.get("field_of")}
    out: dict[str, dict[str, str]] = {}
    for dest in targets:
        cls = field_of.get(dest)
        found = _construction_guard(src, cls) if cls else None
        if found:
            out[dest] = {"test": found[0], "source": found[1]}
    return out


def _construction_guard(src: WheelSource, cls: str) -> tuple[str, str] | None:
    return per_wheel(src, f"construction_guard:{cls}", lambda: _find_guard(src, cls))


def _find_guard(src: WheelSource, cls: str) -> tuple[str, str] | None:
    """(test, file:line) of the ``if`` around the one place the package calls ``cls(...)``,
    or None when it is called elsewhere too, or unconditionally."""
    found: list[tuple[str, str] | None] = []
    for name in files_with(src, f"{cls}(", f"={cls}"):
        tree = parse(src, name)
        if tree is None:
            continue
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for call in ast.walk(tree):
            if isinstance(call, ast.keyword) and call.arg == "default_factory" and \
                    _callee(call.value) == cls:
                found.append(None)  # a field's default: built whenever its owner is
                continue
            if not (isinstance(call, ast.Call) and _callee(call.func) == cls):
                continue
            node: ast.AST | None = call
            guard = None
            target = ""
            while node is not None and not isinstance(node, ast.FunctionDef | ast.Module):
                parent = parents.get(node)
                if isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    target = ast.unparse(targets[0])
                if isinstance(parent, ast.IfExp) and node is parent.body:
                    guard = (ast.unparse(parent.test), f"{name}:{parent.lineno}")
                    break
                if isinstance(parent, ast.If) and node in parent.body:
                    test = ast.unparse(parent.test)
                    # `if x is None: x = Cfg()` / `if isinstance(x, dict): x = Cfg(**x)`
                    # fill or convert a value: not a condition on the launch
                    if not (target and target in test):
                        guard = (test, f"{name}:{parent.lineno}")
                    break
                node = parent
            found.append(guard)
    return found[0] if len(found) == 1 else None


def _callee(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _deprecated_quantization(src: WheelSource) -> dict[str, Any] | None:
    """``DEPRECATED_QUANTIZATION_METHODS`` and the option that lets them through, when the
    model config raises for them unless that option is set (vLLM >= 0.14)."""
    found = find_def(src, "DEPRECATED_QUANTIZATION_METHODS", "quantization")
    if found is None or not isinstance(found[1], ast.Assign) or \
            not isinstance(found[1].value, ast.List):
        return None
    path, node = found
    values = [e.value for e in node.value.elts
              if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    for name in files_with(src, "DEPRECATED_QUANTIZATION_METHODS"):
        tree = parse(src, name)
        for fn in ast.walk(tree) if tree is not None else ():
            if not isinstance(fn, ast.If) or "DEPRECATED_QUANTIZATION_METHODS" not in \
                    ast.unparse(fn.test):
                continue
            inner = fn.body[0] if fn.body else None
            # if self.quantization in DEPRECATED…: if self.allow_X: warn  else: raise
            if isinstance(inner, ast.If) and isinstance(inner.test, ast.Attribute) and \
                    any(isinstance(n, ast.Raise) for s in inner.orelse for n in ast.walk(s)):
                return {"values": values, "unless": inner.test.attr,
                        "source": f"{path}:{node.lineno}", "check": f"{name}:{fn.lineno}"}
    return None


def engine_fields(src: WheelSource) -> EngineFields:
    return per_wheel(src, "engine_fields", lambda: _engine_fields(src))


def _engine_fields(src: WheelSource) -> EngineFields:
    info = EngineFields()
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    if not found or not isinstance(found[1], ast.ClassDef):
        return info
    config_classes = {name for name in _config_class_names(src)}
    for node in found[1].body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        dest = node.target.id
        ann = ast.unparse(node.annotation)
        info.annotations[dest] = ann
        if isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name):
            info.by_config_field.setdefault((node.value.value.id, node.value.attr), []).append(dest)
        names = {n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)}
        typed = names & config_classes
        if typed and "dict" not in names:
            info.json_prefix.setdefault(typed.pop(), (dest, "parse"))
        elif dest.endswith("_config"):
            cls = "".join(p.capitalize() for p in dest[: -len("_config")].split("_")) + "Config"
            match = next((c for c in config_classes if c.lower() == cls.lower()), None)
            if match:
                info.json_prefix.setdefault(match, (dest, "engine_config"))
    return info


def _config_class_names(src: WheelSource) -> set[str]:
    names: set[str] = set()
    for path in py_files(src):
        if path.startswith("vllm/config") and (tree := parse(src, path)) is not None:
            names |= {n.name for n in tree.body
                      if isinstance(n, ast.ClassDef) and n.name.endswith("Config")}
    return names


def _frontend_option_text(src: WheelSource) -> str:
    return "\n".join(src.read(p) for p in files_with(src, "tool_call_parser")
                     if "cli_args" in p or p.endswith("arg_utils.py"))


def _dests(vs: ValueSet, fields: EngineFields, frontend: str) -> list[str]:
    dests: list[str] = []
    for cf in vs.config_fields:
        dests += fields.by_config_field.get(cf, [])
    for dest, ann in fields.annotations.items():
        if any(re.search(rf"\b{re.escape(t)}\b", ann) for t in vs.type_names):
            dests.append(dest)
    if vs.name in ("tool_call_parser", "reasoning_parser") and (
            vs.name in fields.annotations or re.search(
                rf"\b{vs.name}\b|--{vs.name.replace('_', '-')}\b", frontend)):
        dests.append(vs.name)
    return list(dict.fromkeys(d for d in dests if not d.endswith("_config")))


def _dest_stage(src: WheelSource, vs: ValueSet, dest: str, fields: EngineFields,
                parser_choices: dict[str, bool], choices_flags: set[str]) -> str | None:
    if dest in parser_choices:
        return "parse" if parser_choices[dest] else vs.stage
    if dest in choices_flags:
        return "parse"
    ann = fields.annotations.get(dest, "")
    for cls, fname in vs.config_fields:  # vLLM builds the flag from the config field's type
        if dest in fields.by_config_field.get((cls, fname), []):
            node = class_fields(src, cls).get(fname)
            ann = ast.unparse(node.annotation) if node else ann
    open_ = re.search(r"\bstr\b|SkipValidation|Enum\b", ann) or not ann
    return vs.stage if open_ else "parse"


def _typed_by_set(src: WheelSource, vs: ValueSet, cls: str, fname: str) -> bool:
    """The config field's annotation names the set's own type (pydantic checks the value)."""
    node = class_fields(src, cls).get(fname)
    if node is None:
        return False
    ann = ast.unparse(node.annotation)
    return any(re.search(rf"\b{re.escape(t)}\b", ann) for t in vs.type_names) \
        and "SkipValidation" not in ann and not re.search(r"\bstr\b", ann)


def _flags_with_choices(src: WheelSource) -> set[str]:
    """Dests whose ``add_argument("--x", choices=...)`` is explicit in the parser code."""
    out: set[str] = set()
    for path in files_with(src, "add_argument("):
        if not (path.endswith("arg_utils.py") or "cli_args" in path):
            continue
        tree = parse(src, path)
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, ast.Call) and dotted(node.func).endswith("add_argument") \
                    and node.args and any(k.arg == "choices" for k in node.keywords):
                flag = text_of(node.args[0]) or ""
                if flag.startswith("--"):
                    out.add(flag[2:].replace("-", "_"))
    return out


def _parser_choices(profile: dict[str, Any]) -> dict[str, bool]:
    """dest -> parser enforces choices, from the parser section when a colleague built it."""
    actions = (profile.get("parser") or {}).get("actions") or []
    return {a["dest"]: bool(a.get("choices")) for a in actions if "dest" in a}
