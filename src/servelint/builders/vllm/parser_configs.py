"""Config dataclasses reachable through JSON / dotted ``vllm serve`` arguments."""

from __future__ import annotations

import ast
import re
from typing import Any

from servelint.builders.astutil import Definition, ModuleIndex
from servelint.builders.vllm.facts_common import pydantic_validators
from servelint.builders.vllm.init_vars import init_var_fields
from servelint.builders.vllm.normalisers import string_steps
from servelint.builders.vllm.parser_types import (
    EXTERNAL_TYPING,
    Hint,
    TypeResolver,
    class_fields,
    default_text,
    ordered,
    type_text,
)
from servelint.builders.vllm.pydantic_classes import pydantic_validated

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
    for h in ordered(hints):
        if h.kind == "dataclass":
            return h.name
    return None


def _literal_choices(hints: frozenset[Hint]) -> list[str] | None:
    lits = [h for h in ordered(hints) if h.kind == "literal"]
    if not lits:
        for h in ordered(hints):  # list[Literal[...]]
            for sub in h.args:
                if isinstance(sub, frozenset):
                    lits.extend(x for x in ordered(sub) if x.kind == "literal")
    if not lits:
        return None
    return [str(v) for h in lits for v in h.args]


def _validators(d: Definition) -> tuple[dict[str, list[ast.FunctionDef]], bool]:
    """Fields with ``mode="before"`` (wrap, plain) field_validators, each with all of them in
    class order, and whether a model validator runs before field validation (it may rename
    or drop keys)."""
    fields: dict[str, list[ast.FunctionDef]] = {}
    model_before = False
    for stmt in d.node.body:  # type: ignore[attr-defined]
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for name, mode, names in pydantic_validators(stmt):
            if name == "model_validator" and mode in {"before", "wrap"}:
                model_before = True
            if name == "field_validator" and mode in {"before", "wrap", "plain"}:
                for field in names:
                    fields.setdefault(field, []).append(stmt)
    return fields, model_before


def _none_passthrough(fn: ast.FunctionDef) -> bool:
    """A wrap validator that only lets None through: ``if value is None: return value``
    then ``return handler(value)`` (CompilationConfig._skip_none_validation)."""
    args = [a.arg for a in fn.args.args]
    body = [st for st in fn.body if not (isinstance(st, ast.Expr)
                                         and isinstance(st.value, ast.Constant))]
    if len(args) != 3 or len(body) != 2:
        return False
    value, handler = args[1], args[2]
    first, second = (ast.unparse(st) for st in body)
    return first == f"if {value} is None:\n    return {value}" and \
        second == f"return {handler}({value})"


def _field_validator(validators: list[ast.FunctionDef]) -> tuple[ast.FunctionDef | None, bool]:
    """(the one validator that may change the value, whether None is let through); a field
    with more than one such validator is returned as its first (never judged as simple)."""
    changing = [v for v in validators if not _none_passthrough(v)]
    return (changing[0] if changing else None), len(changing) < len(validators)


def _enum_info(index: ModuleIndex, hints: frozenset[Hint]) -> dict[str, Any] | None:
    for h in ordered(hints):
        if h.kind != "class" or not h.module:
            continue
        d = index.resolve(h.module, h.name)
        if d is None or d.kind != "class":
            continue
        bases = " ".join(ast.unparse(b) for b in d.node.bases)  # type: ignore[attr-defined]
        if "Enum" not in bases:
            continue
        members: list[str] = []
        values: list[Any] = []
        for stmt in d.node.body:  # type: ignore[attr-defined]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name) and not stmt.targets[0].id.startswith("_"):
                members.append(stmt.targets[0].id)
                v = stmt.value
                values.append(v.value if isinstance(v, ast.Constant) else None)
        return {"class": d.name, "members": members,
                "values": values if all(v is not None for v in values) else None,
                "source": f"{index.file_of(d.module)}:{d.node.lineno}"}  # type: ignore
    return None


def _never_from_json(index: ModuleIndex, hints: frozenset[Hint]) -> frozenset[Hint]:
    """The members of a union that no JSON value can satisfy: ``Callable`` (pydantic wants
    ``callable(value)``) and ``Protocol`` classes (pydantic checks ``isinstance``), e.g.
    ``dict | SupportsHash`` (VllmConfig.additional_config)."""
    out = set()
    for h in hints:
        if h.kind != "class" or not h.module:
            continue
        if h.name == "Callable" and h.module in EXTERNAL_TYPING:
            out.add(h)
            continue
        d = index.resolve(h.module, h.name)
        if d is not None and d.kind == "class" and any(
                ast.unparse(b).split(".")[-1] == "Protocol" for b in d.node.bases):  # type: ignore
            out.add(h)
    return frozenset(out)


def _value_check(hints: frozenset[Hint], validator: ast.FunctionDef | None,
                 enum: dict[str, Any] | None, never: frozenset[Hint] = frozenset()
                 ) -> dict[str, Any] | None:
    """How pydantic judges a JSON value of this field, when that can be known statically
    (``never``: members no JSON value satisfies, left out of the judged union; a class,
    ``type[X]``, is one of them)."""
    never = never | {h for h in hints if h.kind == "builtin" and h.name == "type"}
    if never and never != hints:
        check = _value_check(hints - never, validator, enum)
        return check if check is None or check["check"] == "type" else None
    kinds = {h.kind for h in hints}
    names = {h.name for h in hints if h.kind == "builtin"}
    if validator is not None:
        text = ast.unparse(validator)
        by_name = f"{enum['class']}[value.upper()]" in text if enum else False
        by_members = bool(enum) and f"{enum['class']}.__members__" in text and \
            ".upper()" in text and "raise" in text  # `if name not in Cls.__members__: raise`
        if enum and (by_name or by_members):
            specials = sorted(set(re.findall(r"value\.lower\(\) == '([^']*)'", text)))
            return {"check": "enum_name_ci", "values": enum["members"], "specials": specials}
        steps = string_steps(validator)  # `if isinstance(v, str): return v.lower()…`
        check = _value_check(hints, None, enum) if steps else None
        if check is not None and check["check"] == "literal":
            return dict(check, normalise=steps)
        return None  # the validator may transform anything
    if kinds <= {"literal", "none"} and "literal" in kinds:
        vals = [v for h in ordered(hints) if h.kind == "literal" for v in h.args]
        return {"check": "literal", "values": [v if isinstance(v, (str, int, float, bool))
                                                else str(v) for v in vals],
                "none": "none" in kinds}
    if kinds <= {"builtin", "none"} and names and names <= {"int", "float"}:
        return {"check": "number", "type": "float" if "float" in names else "int",
                "none": "none" in kinds}
    if enum and kinds <= {"class", "none"} and enum.get("values") is not None:
        return {"check": "enum_value", "values": enum["values"], "none": "none" in kinds}
    shapes = {_SHAPES.get(h.name) for h in hints if h.kind == "builtin" and not h.typing_alias}
    if kinds <= {"builtin", "none"} and shapes and None not in shapes:
        # plain builtins (str, list[...], int | str, ...): pydantic's lax-mode type check
        check = {"check": "type", "types": sorted(shapes), "none": "none" in kinds}
        items = _element_check(hints, "list", 0)
        values = _element_check(hints, "dict", 1)
        if items:
            check["items"] = items
        if values:
            check["values"] = values
        return check
    return None


def _element_check(hints: frozenset[Hint], container: str, arg: int) -> dict[str, Any] | None:
    """What pydantic asks of each element of a ``list[X]`` member (arg 0) or each value of a
    ``dict[K, V]`` member (arg 1): the check of X or V, when it is known."""
    found = [h for h in hints if h.kind == "builtin" and h.name == container and not
             h.typing_alias]
    if len(found) != 1 or len(found[0].args) != arg + 1 or not isinstance(
            found[0].args[arg], frozenset):
        return None
    return _value_check(found[0].args[arg], None, None)


# builtin annotation -> the JSON shape pydantic wants for it (element types are not judged)
_SHAPES = {"str": "str", "int": "int", "float": "float", "bool": "bool", "list": "list",
           "set": "list", "tuple": "list", "frozenset": "list", "dict": "dict"}


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
        # the engine config classes plain options fill (field_of): field bounds and types
        engine_classes = {_field_config(resolver.hints(f.module, f.annotation))
                          for f in vfields.values()} - {None} | {vllm_config.name}
        roots += [act["field_of"] for act in actions if act.get("field_of") in engine_classes]
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
        before, model_before = _validators(d)
        star = before.get("*", [])
        init_vars = {f.name for f in init_var_fields(index, d)}
        for f in class_fields(index, d) + init_var_fields(index, d):
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
            enum = _enum_info(index, hints)
            if enum:
                fields[f.name]["enum"] = enum
            if f.name in init_vars:  # validated on init, not kept as a field
                fields[f.name]["init_var"] = True
            if _init_false(f.default):  # field(init=False): not a constructor keyword
                fields[f.name]["init"] = False
            bounds = _field_bounds(f.default)
            if bounds:
                fields[f.name]["bounds"] = bounds
            validators = before.get(f.name, []) + star
            validator, none_ok = _field_validator(validators)
            if len([v for v in validators if not _none_passthrough(v)]) > 1:
                fields[f.name]["value_check"] = None  # several may change it: not judged
                continue
            check = _value_check(hints, validator, enum, _never_from_json(index, hints))
            if check is not None and none_ok:
                check["none"] = True
            fields[f.name]["value_check"] = check
        out[name] = {
            "extra": _decorator_extra(index, d),
            "pydantic": pydantic_validated(index, d),  # its field types are validated
            "source": f"{index.file_of(d.module) or d.path}:{d.node.lineno}",  # type: ignore
            "fields": fields,
            "keys_checked": not model_before,  # a before-model-validator may rewrite keys
        }
    return out


def _field_bounds(node: ast.AST | None) -> dict[str, float]:
    """Numeric bounds of ``Field(default=..., ge=1)`` (pydantic validates them on init)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)):
        return {}
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    if name != "Field":
        return {}
    out: dict[str, float] = {}
    for k in node.keywords:
        if k.arg in {"ge", "gt", "le", "lt"}:
            try:
                value = ast.literal_eval(k.value)
            except ValueError:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[k.arg] = value
    return out


def _init_false(node: ast.AST | None) -> bool:
    """``field(..., init=False)`` (dataclasses or pydantic)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name in {"field", "Field"} and any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in node.keywords)
