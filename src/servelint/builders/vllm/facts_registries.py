"""vLLM's name registries, read from the wheel: which values a setting accepts and which module
implements each value (the latter lets ``vllm_gates`` tie an import failure to a value).

Each registry is located by the symbol the release defines it under (``_VLLM_TOKENIZERS``,
``QUANTIZATION_METHODS``, ``AttentionBackendEnum`` …); its content always comes from the code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.astutil import absolute_module, dotted
from servelint.builders.vllm import dispatch_sets, value_checks
from servelint.builders.vllm.facts_common import (
    enum_members,
    file_module,
    files_with,
    find_def,
    literal_values,
    module_consts,
    module_file,
    parse,
    per_wheel,
    ref,
    text_of,
)
from servelint.builders.wheel import WheelSource


@dataclass
class ValueSet:
    name: str
    values: list[str]
    source: str
    type_names: tuple[str, ...] = ()  # annotation names that mark a field governed by the set
    config_fields: tuple[tuple[str, str], ...] = ()  # (ConfigClass, field)
    case_sensitive: bool = True
    message: str = ""
    stage: str | None = None
    modules: dict[str, list[str]] = field(default_factory=dict)  # value -> wheel .py paths
    only_with: tuple[str, ...] = ()  # other options the rejecting check requires to be set
    registered_by: str = ""  # path:line of a function that adds values at run time (plugins)
    class_paths: bool = False  # a text with a dot names a class to import: not judged
    guarded: tuple[Any, ...] = ()  # guarded_lookups.GuardedLookup: looked up under a guard


def value_sets(src: WheelSource) -> dict[str, ValueSet]:
    return per_wheel(src, "value_sets", lambda: _collect(src))


def _collect(src: WheelSource) -> dict[str, ValueSet]:
    sets: dict[str, ValueSet] = {}
    for make in (_tokenizer_modes, _quantization, _load_formats, _attention_backends,
                 _mla_prefill, _mamba_backends, _literal_sets, _tool_parsers,
                 _reasoning_parsers, _kv_connectors, _code_checks):
        for vs in make(src):
            sets.setdefault(vs.name, vs)
    return sets


# ---------------------------------------------------------------- helpers

def _code_checks(src: WheelSource) -> list[ValueSet]:
    """Membership checks in validators and lookup functions (``value_checks``)."""
    out = []
    for found in value_checks.validator_sets(src) + value_checks.lookup_sets(src) + \
            dispatch_sets.dispatch_sets(src):
        message = f"{found['message']}, {found['check']}" if found["message"] else found["check"]
        out.append(ValueSet(found["name"], found["values"], found["source"], (),
                            (found["config_field"],), True, message, "engine_config",
                            registered_by=found["registered_by"],
                            class_paths=found.get("class_paths", False)))
    return out


def _dict_assign(src: WheelSource, name: str, prefer: str = "") -> tuple[str, ast.Dict] | None:
    found = find_def(src, name, prefer)
    if found and isinstance(found[1], ast.Assign | ast.AnnAssign) \
            and isinstance(found[1].value, ast.Dict):
        return found[0], found[1].value
    return None


def _first_raise(src: WheelSource, path: str, *needles: str) -> str:
    """Text of the first ``raise X("…")`` in ``path`` whose message contains a needle."""
    tree = parse(src, path)
    if tree is None:
        return ""
    consts = module_consts(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            msg = text_of(node.exc.args[0], consts) or ""
            if any(n in msg for n in needles):
                return msg
    return ""


def _imported_class_modules(src: WheelSource, path: str, func: ast.AST | None = None
                            ) -> dict[str, str]:
    """Class name -> wheel path of the module it is imported from (in ``func`` or ``path``)."""
    tree = func or parse(src, path)
    out: dict[str, str] = {}
    if tree is None:
        return out
    module, is_pkg = file_module(path), path.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = absolute_module(module, node.module, node.level, is_pkg)
            target = module_file(src, mod)
            for alias in node.names:
                sub = module_file(src, f"{mod}.{alias.name}")
                if sub:
                    out[alias.asname or alias.name] = sub
                elif target:
                    out[alias.asname or alias.name] = target
    return out


def _lowercased(src: WheelSource, cls_name: str, field_name: str) -> bool:
    """The config class lower/upper-cases ``field_name`` in a validator (case-insensitive)."""
    found = find_def(src, cls_name, "vllm/config")
    if not found or not isinstance(found[1], ast.ClassDef):
        return False
    for fn in found[1].body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        targets = [text_of(a) for d in fn.decorator_list if isinstance(d, ast.Call)
                   for a in d.args]
        if field_name not in targets:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("lower", "upper"):
                return True
    return False


def _enum_set(src: WheelSource, name: str, cls_name: str, prefer: str,
              config_fields: tuple[tuple[str, str], ...], message_needle: str) -> list[ValueSet]:
    found = find_def(src, cls_name, prefer)
    if not found or not isinstance(found[1], ast.ClassDef):
        return []
    path, cls = found
    values, modules = [], {}
    for member, value in enum_members(cls):
        values.append(member)
        qual = text_of(value)
        if qual and "." in qual:
            mod = module_file(src, qual.rsplit(".", 1)[0])
            if mod:
                modules[member] = [mod]
    msg = _first_raise(src, path, message_needle)
    # a metaclass __getitem__ that upper-cases, or validators that do, make names case-insensitive
    insensitive = any(_lowercased(src, c, f) for c, f in config_fields) or ".upper()" in \
        src.read(path)
    return [ValueSet(name, values, ref(path, cls), (cls_name,), config_fields,
                     not insensitive, msg, "engine_config", modules)]


# ---------------------------------------------------------------- the registries

def _tokenizer_modes(src: WheelSource) -> list[ValueSet]:
    found = _dict_assign(src, "_VLLM_TOKENIZERS", "tokenizers")
    if not found:
        return []
    path, node = found
    values, modules = [], {}
    for k, v in zip(node.keys, node.values, strict=True):
        if isinstance(k, ast.Constant) and isinstance(v, ast.Tuple) and v.elts:
            values.append(k.value)
            mod = module_file(src, f"vllm.tokenizers.{text_of(v.elts[0])}")
            modules[k.value] = [mod] if mod else []
    # modes resolved before the registry lookup (tokenizer_mode == "auto" / "slow")
    for cmp in ast.walk(src.parse(path)):
        if isinstance(cmp, ast.Compare) and dotted(cmp.left) == "tokenizer_mode" \
                and isinstance(cmp.ops[0], ast.Eq) and isinstance(cmp.comparators[0], ast.Constant):
            mode = cmp.comparators[0].value
            if isinstance(mode, str) and mode not in values:
                values.append(mode)
    renderers = _dict_assign(src, "_VLLM_RENDERERS", "renderers")
    if renderers:  # a mode also selects a renderer module (e.g. `cohere`)
        for k, v in zip(renderers[1].keys, renderers[1].values, strict=True):
            if isinstance(k, ast.Constant) and k.value in modules and isinstance(v, ast.Tuple):
                mod = module_file(src, f"vllm.renderers.{text_of(v.elts[0])}")
                if mod:
                    modules[k.value].append(mod)
    msg = _first_raise(src, path, "No tokenizer registered")
    return [ValueSet("tokenizer_mode", values, ref(path, node), ("TokenizerMode",),
                     (("ModelConfig", "tokenizer_mode"),),
                     not _lowercased(src, "ModelConfig", "tokenizer_mode"), msg, "renderer",
                     modules)]


def _quantization(src: WheelSource) -> list[ValueSet]:
    found = find_def(src, "QUANTIZATION_METHODS", "quantization")
    if not found or not isinstance(found[1], ast.Assign | ast.AnnAssign):
        return []
    path, node = found
    value = node.value
    values = None
    if isinstance(value, ast.List | ast.Tuple):
        values = [text_of(e) for e in value.elts]
    elif isinstance(value, ast.Call):  # list(get_args(QuantizationMethods))
        inner = value.args[0] if value.args else None
        if isinstance(inner, ast.Call) and inner.args:
            values = literal_values(src, inner.args[0], path)
    if not values or None in values:
        return []
    modules: dict[str, list[str]] = {}
    getter = find_def(src, "get_quantization_config", "quantization")
    if getter and isinstance(getter[1], ast.FunctionDef):
        classes = _imported_class_modules(src, getter[0], getter[1])
        for sub in ast.walk(getter[1]):
            if isinstance(sub, ast.Dict):
                for k, v in zip(sub.keys, sub.values, strict=True):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Name) \
                            and v.id in classes:
                        modules.setdefault(k.value, []).append(classes[v.id])
    model_cfg = find_def(src, "ModelConfig", "vllm/config")
    msg = _first_raise(src, model_cfg[0], "Unknown quantization method") if model_cfg else ""
    return [ValueSet("quantization", [v for v in values if v], ref(path, node),
                     ("QuantizationMethods",), (("ModelConfig", "quantization"),),
                     True, msg, "engine_config", modules)]


def _load_formats(src: WheelSource) -> list[ValueSet]:
    found = find_def(src, "LoadFormats", "model_loader")
    if not found:
        return []
    path, node = found
    values = literal_values(src, getattr(node, "value", None), path) or []
    modules: dict[str, list[str]] = {}
    table = _dict_assign(src, "_LOAD_FORMAT_TO_MODEL_LOADER", "model_loader")
    if table:
        classes = _imported_class_modules(src, table[0])
        for k, v in zip(table[1].keys, table[1].values, strict=True):
            if isinstance(k, ast.Constant) and isinstance(v, ast.Name):
                if k.value not in values:
                    values.append(k.value)
                if v.id in classes:
                    modules[k.value] = [classes[v.id]]
    msg = _first_raise(src, path, "not supported", "Unknown")
    return [ValueSet("load_format", values, ref(path, node), ("LoadFormats",),
                     (("LoadConfig", "load_format"),),
                     not _lowercased(src, "LoadConfig", "load_format"), msg, "load", modules)]


def _attention_backends(src: WheelSource) -> list[ValueSet]:
    sets = _enum_set(src, "attention_backend", "AttentionBackendEnum", "attention",
                     (("AttentionConfig", "backend"),), "Unknown attention backend")
    if not sets:  # <= 0.12: platforms.interface._Backend, chosen via VLLM_ATTENTION_BACKEND
        sets = _enum_set(src, "attention_backend", "_Backend", "platforms", (), "Unknown")
        for vs in sets:
            vs.stage = "engine_config"
    return sets


def _mla_prefill(src: WheelSource) -> list[ValueSet]:
    return _enum_set(src, "mla_prefill_backend", "MLAPrefillBackendEnum", "prefill",
                     (("AttentionConfig", "mla_prefill_backend"),), "Unknown MLA prefill")


def _mamba_backends(src: WheelSource) -> list[ValueSet]:
    out = _enum_set(src, "mamba_backend", "MambaBackendEnum", "config",
                    (("MambaConfig", "backend"),), "Unknown")
    out += _enum_set(src, "mamba_attention_backend", "MambaAttentionBackendEnum", "attention",
                     (), "Unknown")
    return out


_LITERALS = {  # set name -> (Literal alias, config field it types)
    "moe_backend": ("MoEBackend", ("KernelConfig", "moe_backend")),
    "linear_backend": ("LinearBackend", ("KernelConfig", "linear_backend")),
    "speculative_method": ("SpeculativeMethod", ("SpeculativeConfig", "method")),
}


def _literal_sets(src: WheelSource) -> list[ValueSet]:
    out = []
    for name, (alias, cfg_field) in _LITERALS.items():
        found = find_def(src, alias, "vllm/config")
        if not found or not isinstance(found[1], ast.Assign | ast.AnnAssign):
            continue
        values = literal_values(src, found[1].value, found[0])
        if values:
            cfg = find_def(src, cfg_field[0], "vllm/config")
            msg = ""
            if cfg and name == "speculative_method":
                msg = _first_raise(src, cfg[0], "Unsupported speculative method",
                                   "Unknown speculative")
            out.append(ValueSet(name, values, ref(found[0], found[1]), (alias,), (cfg_field,),
                                not _lowercased(src, *cfg_field), msg, "engine_config"))
    return out


def _manager_registry(src: WheelSource, name: str, manager: str, lazy_dict: str
                      ) -> list[ValueSet]:
    """Names registered with ``<manager>.register_module("x")`` decorators or the lazy
    ``<lazy_dict> = {"x": (file, class)}`` table."""
    values: list[str] = []
    modules: dict[str, list[str]] = {}
    source = ""
    for path in files_with(src, manager, lazy_dict):
        tree = parse(src, path)
        if tree is None:
            continue
        pkg = file_module(path).rsplit(".", 1)[0] if not path.endswith("__init__.py") \
            else file_module(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict) \
                    and any(isinstance(t, ast.Name) and t.id == lazy_dict
                            for t in getattr(node, "targets", [getattr(node, "target", None)])):
                source = source or ref(path, node)
                for k, v in zip(node.value.keys, node.value.values, strict=True):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        values.append(k.value)
                        if isinstance(v, ast.Tuple) and v.elts:
                            mod = module_file(src, f"{pkg}.{text_of(v.elts[0])}")
                            modules[k.value] = [mod] if mod else []
            if isinstance(node, ast.Call) and dotted(node.func).endswith(
                    f"{manager}.register_module") and node.args:
                names = [text_of(node.args[0])] if text_of(node.args[0]) else \
                    [text_of(e) for e in getattr(node.args[0], "elts", [])]
                for n in names:
                    if n:
                        values.append(n)
                        modules.setdefault(n, []).append(path)
                        source = source or ref(path, node)
    if not values:
        return []
    seen = list(dict.fromkeys(values))
    return [ValueSet(name, seen, source, (), (), True, "", None, modules)]


def _tool_parsers(src: WheelSource) -> list[ValueSet]:
    out = _manager_registry(src, "tool_call_parser", "ToolParserManager",
                            "_TOOL_PARSERS_TO_REGISTER")
    for vs in out:
        vs.stage = "api_args"
        check = _args_check(src, "tool_call_parser")
        if check:  # `if args.enable_auto_tool_choice and args.tool_call_parser not in …: raise`
            vs.message, vs.only_with, vs.source = check
    return out


def _args_check(src: WheelSource, dest: str) -> tuple[str, tuple[str, ...], str] | None:
    """The ``if … args.<dest> not in …: raise`` check: (message, other args it needs, source)."""
    for path in files_with(src, f"args.{dest} not in"):
        tree = parse(src, path)
        for node in ast.walk(tree) if tree else []:
            if not (isinstance(node, ast.If) and f"args.{dest} not in" in ast.unparse(node.test)):
                continue
            raise_ = next((n for n in node.body if isinstance(n, ast.Raise)), None)
            if raise_ is None or not isinstance(raise_.exc, ast.Call) or not raise_.exc.args:
                continue
            others = tuple(dict.fromkeys(
                a.attr for a in ast.walk(node.test) if isinstance(a, ast.Attribute)
                and dotted(a.value) == "args" and a.attr != dest))
            return text_of(raise_.exc.args[0]) or "", others, ref(path, node)
    return None


def _reasoning_parsers(src: WheelSource) -> list[ValueSet]:
    out = _manager_registry(src, "reasoning_parser", "ReasoningParserManager",
                            "_REASONING_PARSERS_TO_REGISTER")
    for vs in out:
        vs.stage = "engine_config"
        vs.config_fields = (("StructuredOutputsConfig", "reasoning_parser"),
                            *value_checks.looked_up_fields(src, "get_reasoning_parser"))
        from servelint.builders.vllm.guarded_lookups import guarded_lookups

        vs.guarded = tuple(guarded_lookups(src, "get_reasoning_parser", set(vs.config_fields)))
        found = [p for p in files_with(src, "class ReasoningParserManager")]
        vs.message = _first_raise(src, found[0], "not found", "not registered") if found else ""
    return out


def _kv_connectors(src: WheelSource) -> list[ValueSet]:
    """``KVConnectorFactory.register_connector("Name", "module", "Class")`` calls."""
    values: list[str] = []
    modules: dict[str, list[str]] = {}
    source = ""
    for path in files_with(src, "KVConnectorFactory.register_connector("):
        tree = parse(src, path)
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, ast.Call) and dotted(node.func).endswith(
                    "KVConnectorFactory.register_connector") and len(node.args) >= 2:
                name, mod = text_of(node.args[0]), text_of(node.args[1])
                if name:
                    values.append(name)
                    source = source or ref(path, node)
                    target = module_file(src, mod) if mod else None
                    modules[name] = [target] if target else []
    if not values:
        return []
    # stage None: where an unknown connector fails differs by release (not a late_values set)
    return [ValueSet("kv_connector", values, source, (), (("KVTransferConfig", "kv_connector"),),
                     True, "", None, modules)]
