"""The LLM API argument model (``tensorrt_llm/llmapi/llm_args.py``), read with ``ast``.

The option file of ``trtllm-serve --config`` is merged into the LLM API arguments and
validated by the pydantic class of the backend (``TorchLlmArgs``, ``TrtLlmArgs``). For each
class reachable from those roots: its bases, whether unknown keys are forbidden
(``extra="forbid"``, inherited), its fields (type, default, status tag of TensorRT-LLM's
``Field(status=...)``, aliases) and the validators that raise. Types become a small
descriptor grammar that ``option_file`` validates YAML values against; a class the builder
cannot read (a compiled binding, a torch type) becomes ``{"any": name}``: it accepts anything.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.astutil import ModuleIndex, ModuleInfo, class_constants
from servelint.builders.static_eval import literal as _const
from servelint.builders.trtllm import build_bounds as bounds
from servelint.builders.trtllm.build_backends import supports_backend
from servelint.builders.trtllm.build_spec_asserts import speculative_asserts

LLM_ARGS_MODULE = "tensorrt_llm.llmapi.llm_args"
ROOTS = ("TorchLlmArgs", "TrtLlmArgs", "BaseLlmArgs")
_SCALARS = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "Path": "str",
    "bytes": "str",
}
_ANY = {"Any", "object", "Callable", "type"}
_MODEL_BASES = {"BaseModel", "StrictBaseModel"}
_ENUM_BASES = {"Enum", "StrEnum", "IntEnum"}


class _Classes:
    """Class definitions across the package, found through each module's imports."""

    def __init__(self, src: Any):
        self.src = src
        self.index = ModuleIndex(src)

    def module(self, name: str) -> ModuleInfo | None:
        return self.index.info(name)

    def find(self, module: str, name: str, depth: int = 0) -> tuple[str, ast.AST] | None:
        """(module, ClassDef or alias expression) that ``name`` means in ``module``."""
        info = self.module(module)
        if info is None or depth > 12:
            return None
        if name in info.classes:
            return module, info.classes[name]
        bound = [
            st for st in info.assigns.get(name, ()) if isinstance(st, ast.Assign | ast.AnnAssign)
        ]
        if bound:  # the last binding; a type alias: SpeculativeConfig: TypeAlias = Union[...]
            return module, bound[-1].value  # type: ignore[return-value]
        if name in info.imports:
            mod, attr = info.imports[name]
            if attr is None:
                return None
            found = self.find(mod, attr, depth + 1)
            if found is None and self.module(f"{mod}.{attr}") is not None:
                return None
            return found
        return None


class _Extractor:
    def __init__(self, src: Any):
        self.classes = _Classes(src)
        self.out: dict[str, Any] = {}  # class name -> entry
        self.where: dict[str, tuple[str, ast.ClassDef]] = {}
        self.opaque: set[str] = set()

    # ---- classes --------------------------------------------------------------------
    def class_kind(self, module: str, cls: ast.ClassDef, depth: int = 0) -> str:
        """model | enum | other, through the bases."""
        for b in cls.bases:
            name = _base_name(b)
            if name in _MODEL_BASES:
                return "model"
            if name in _ENUM_BASES:
                return "enum"
            found = self.classes.find(module, name) if name else None
            if found and isinstance(found[1], ast.ClassDef) and depth < 12:
                kind = self.class_kind(found[0], found[1], depth + 1)
                if kind != "other":
                    return kind
        return "other"

    def add_model(self, module: str, cls: ast.ClassDef) -> str:
        name = cls.name
        if name in self.out and self.out[name]["module"] != module:
            name = f"{module}.{cls.name}"  # two classes of one name in different modules
        if name in self.out:
            return name
        self.out[name] = entry = {"module": module, "line": cls.lineno, "bases": [], "fields": {}}
        self.where[name] = (module, cls)
        path = self.classes.module(module).path  # type: ignore[union-attr]
        entry["file"] = path
        for b in cls.bases:
            bname = _base_name(b)
            found = self.classes.find(module, bname) if bname else None
            if (
                found
                and isinstance(found[1], ast.ClassDef)
                and self.class_kind(found[0], found[1]) == "model"
            ):
                entry["bases"].append(self.add_model(found[0], found[1]))
        forbid = _extra_forbid(cls)
        if forbid is not None:
            entry["forbid"] = forbid
        for st in cls.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                self.add_field(module, entry, st)
        dispatch = _dispatch(cls)
        if dispatch is not None:
            key, table, line, lower = dispatch
            resolved = {}
            for tag, cname in table.items():
                found = self.classes.find(module, cname)
                if found and isinstance(found[1], ast.ClassDef):
                    resolved[tag] = self.add_model(found[0], found[1])
            entry["dispatch"] = {"key": key, "classes": resolved, "line": line, "lower": lower}
        entry["validators"] = _validators(cls)
        backends = supports_backend(cls)
        if backends is not None:
            entry["supports_backend"] = backends
        asserts = speculative_asserts(cls)
        if asserts is not None:
            entry["speculative_asserts"] = asserts
        return name

    def add_field(self, module: str, entry: dict[str, Any], st: ast.AnnAssign) -> None:
        name = st.target.id  # type: ignore[union-attr]
        ann = st.annotation
        if name.startswith("_") or name == "model_config" or _is_classvar(ann):
            return
        field: dict[str, Any] = {"line": st.lineno, "type": self.type_of(module, ann)}
        value = st.value
        if isinstance(value, ast.Call) and _callee(value) in {"Field", "PydanticField"}:
            kw = {k.arg: k.value for k in value.keywords if k.arg}
            if value.args:
                kw.setdefault("default", value.args[0])
            given = kw.get("default")
            if ("default" not in kw and "default_factory" not in kw) or (
                isinstance(given, ast.Constant) and given.value is Ellipsis
            ):  # Field(...) is pydantic's spelling of "required"
                field["required"] = True
            elif "default" in kw:
                field["default"] = _json_safe(_const(kw["default"]))
            status = _const(kw.get("status"))
            extra = _const(kw.get("json_schema_extra"))
            if status is None and isinstance(extra, dict):
                status = extra.get("status")
            if isinstance(status, str):
                field["status"] = status
            aliases = _aliases(kw)
            if aliases:
                field["aliases"] = aliases
            if _const(kw.get("exclude")) is True:
                field["exclude"] = True
        elif value is None:
            field["required"] = True
        else:
            field["default"] = _json_safe(_const(value))
        entry["fields"][name] = field

    # ---- types ----------------------------------------------------------------------
    def type_of(self, module: str, node: ast.expr | None, depth: int = 0) -> Any:
        if node is None or depth > 20:
            return {"any": "?"}
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.type_of(module, ast.parse(node.value, mode="eval").body, depth + 1)
            except SyntaxError:
                return {"any": node.value}
        if isinstance(node, ast.Constant) and node.value is None:
            return "none"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return _union(
                [
                    self.type_of(module, node.left, depth + 1),
                    self.type_of(module, node.right, depth + 1),
                ]
            )
        if isinstance(node, ast.Subscript):
            head = _base_name(node.value)
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head == "Optional":
                return _union([self.type_of(module, args[0], depth + 1), "none"])
            if head == "Union":
                return _union([self.type_of(module, a, depth + 1) for a in args])
            if head in {
                "List",
                "list",
                "Set",
                "set",
                "Tuple",
                "tuple",
                "Sequence",
                "FrozenSet",
                "frozenset",
            }:
                item = (
                    self.type_of(module, args[0], depth + 1)
                    if args
                    and not (isinstance(args[0], ast.Constant) and args[0].value is Ellipsis)
                    else {"any": "?"}
                )
                return {"list": item}
            if head in {"Dict", "dict", "Mapping"}:
                return {
                    "dict": self.type_of(module, args[1], depth + 1)
                    if len(args) > 1
                    else {"any": "?"}
                }
            if head == "Literal":
                return {"literal": [_json_safe(_const(a)) for a in args]}
            if head == "Annotated":
                return self.type_of(module, args[0], depth + 1)
            return {"any": ast.unparse(node)[:60]}
        name = _base_name(node)
        if name in {"dict", "Dict", "Mapping"}:
            return {"dict": {"any": "?"}}
        if name in {"list", "List", "set", "Set", "tuple", "Tuple"}:
            return {"list": {"any": "?"}}
        if name in _SCALARS:
            return _SCALARS[name]
        if name in _ANY or not name:
            return {"any": name or ast.unparse(node)[:60]}
        found = self.classes.find(module, name)
        if found is None:
            self.opaque.add(name)
            return {"any": name}
        mod, target = found
        if isinstance(target, ast.ClassDef):
            kind = self.class_kind(mod, target)
            if kind == "model":
                return {"model": self.add_model(mod, target)}
            if kind == "enum":
                values = _enum_values(target)
                return {"enum": values, "name": name} if values else {"any": name}
            self.opaque.add(name)
            return {"any": name}
        return self.type_of(mod, target, depth + 1)  # type alias


def _union(options: list[Any]) -> Any:
    flat: list[Any] = []
    for o in options:
        for x in o["union"] if isinstance(o, dict) and "union" in o else [o]:
            if x not in flat:
                flat.append(x)
    return flat[0] if len(flat) == 1 else {"union": flat}


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    return ""


def _callee(call: ast.Call) -> str:
    return _base_name(call.func)


def _is_classvar(ann: ast.expr) -> bool:
    return _base_name(ann) == "ClassVar"


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    return None


def _aliases(kw: dict[str, ast.expr]) -> list[str]:
    out: list[str] = []
    for key in ("alias", "validation_alias"):
        node = kw.get(key)
        if node is None:
            continue
        if isinstance(node, ast.Call) and _callee(node) == "AliasChoices":
            out += [v for v in (_const(a) for a in node.args) if isinstance(v, str)]
        elif isinstance(_const(node), str):
            out.append(_const(node))
    return sorted(set(out))


def _extra_forbid(cls: ast.ClassDef) -> bool | None:
    """``class Config: extra = "forbid"`` or ``model_config = {...}`` / ``ConfigDict(...)``."""
    for st in cls.body:
        if isinstance(st, ast.ClassDef) and st.name == "Config":
            for sub in st.body:
                if isinstance(sub, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "extra" for t in sub.targets
                ):
                    return _const(sub.value) == "forbid"
        if isinstance(st, ast.Assign | ast.AnnAssign):
            targets = [st.target] if isinstance(st, ast.AnnAssign) else st.targets
            if not any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
                continue
            value = st.value
            if isinstance(value, ast.Dict):
                for k, v in zip(value.keys, value.values, strict=True):
                    if _const(k) == "extra":
                        return _const(v) == "forbid"
            if isinstance(value, ast.Call):
                for k in value.keywords:
                    if k.arg == "extra":
                        return _const(k.value) == "forbid"
    return None


def _enum_values(cls: ast.ClassDef) -> list[Any]:
    values = []
    for _name, node in class_constants(cls):
        v = _const(node)
        if isinstance(v, str | int):
            values.append(v)
        elif isinstance(node, ast.Call):  # auto(), or a pybind value
            return []
    return values


def _dispatch(cls: ast.ClassDef) -> tuple[str, dict[str, str], int, bool] | None:
    """``from_dict`` choosing a subclass by one key of the data: (key, tag->class, line)."""
    fn = next(
        (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "from_dict"), None
    )
    if fn is None:
        return None
    table: dict[str, str] = {}
    key = None
    lower = False
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Dict)
            and node.keys
            and all(isinstance(_const(k), str) for k in node.keys)
            and all(isinstance(v, ast.Name) for v in node.values)
        ):
            table = {_const(k): v.id for k, v in zip(node.keys, node.values, strict=True)}
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "data"
            and isinstance(_const(node.args[0]), str)
        ):
            key = _const(node.args[0])
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Call)
            and _callee(node.args[0]) == "lower"
        ):
            lower = True
    if not table or key is None:
        return None
    return key, table, fn.lineno, lower


def _validators(cls: ast.ClassDef) -> list[dict[str, Any]]:
    """Validators that raise: name, the fields they check, line."""
    out = []
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        decs = [
            d
            for d in fn.decorator_list
            if isinstance(d, ast.Call)
            and _callee(d) in {"field_validator", "model_validator", "validator", "root_validator"}
        ]
        if not decs or not any(isinstance(n, ast.Raise) for n in ast.walk(fn)):
            continue
        fields = [v for d in decs for v in (_const(a) for a in d.args) if isinstance(v, str)]
        entry = {"name": fn.name, "line": fn.lineno, "fields": fields, "kind": _callee(decs[0])}
        mode = next((_const(k.value) for d in decs for k in d.keywords if k.arg == "mode"), None)
        if mode is not None:
            entry["mode"] = mode
        if entry["kind"] == "field_validator" and mode in (None, "after"):
            refuses = bounds.refusals(fn)
            if refuses is not None:
                entry["refuses"] = refuses
        elif entry["kind"] == "model_validator" and mode == "after":
            found = bounds.model_refusals(fn)
            if found is not None:
                entry["fields"], entry["refuses"] = [found[0]], found[1]
        out.append(entry)
    return out


def extract(src: Any) -> dict[str, Any]:
    ex = _Extractor(src)
    roots = {}
    for root in ROOTS:
        found = ex.classes.find(LLM_ARGS_MODULE, root)
        if found and isinstance(found[1], ast.ClassDef):
            roots[root] = ex.add_model(found[0], found[1])
    # the AutoDeploy backend's own model, when the tree has it
    ad = ex.classes.find("tensorrt_llm._torch.auto_deploy.llm_args", "LlmArgs")
    if ad and isinstance(ad[1], ast.ClassDef):
        name = ex.add_model(ad[0], ad[1])
        roots["AutoDeployLlmArgs"] = name
    return {
        "roots": roots,
        "classes": ex.out,
        "opaque_types": sorted(ex.opaque),
        **_converted(ex.classes),
    }


def _converted(classes: _Classes) -> dict[str, Any]:
    """Keys the option-file merge turns into their config class before anything else
    (``update_llm_args_with_extra_dict``'s ``field_mapping``), with where it does it."""
    for module in (LLM_ARGS_MODULE, "tensorrt_llm.llmapi.llm_utils"):
        info = classes.module(module)
        if info is None:
            continue
        for st in info.tree.body:
            if isinstance(st, ast.FunctionDef) and st.name == "update_llm_args_with_extra_dict":
                for node in ast.walk(st):
                    if (
                        isinstance(node, ast.Assign)
                        and isinstance(node.value, ast.Dict)
                        and any(
                            isinstance(t, ast.Name) and t.id == "field_mapping"
                            for t in node.targets
                        )
                    ):
                        keys = [_const(k) for k in node.value.keys]
                        return {
                            "converted": [k for k in keys if isinstance(k, str)],
                            "merge": f"{info.path}:{st.lineno}",
                        }
    return {}
