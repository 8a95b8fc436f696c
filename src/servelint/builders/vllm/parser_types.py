"""Dataclass field annotations -> argparse kwargs, as vLLM's ``get_kwargs`` computes them.

The annotation AST is turned into the set of type hints vLLM's ``get_type_hints``
would see (Union/Optional/Annotated flattened, aliases followed), then the branch
order of the release's ``_compute_kwargs`` is replayed.  Release differences are
detected from that function's own source (``KwargsFeatures``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from servelint.builders.astutil import Definition, ModuleIndex, docstring_after

BUILTINS = {"int", "str", "bool", "float", "dict", "list", "tuple", "set", "frozenset", "bytes",
            "object", "type", "complex"}
TYPING_COLLECTIONS = {"Dict": "dict", "List": "list", "Tuple": "tuple", "Set": "set",
                      "FrozenSet": "frozenset", "Type": "type"}
EXTERNAL_TYPING = {"typing", "typing_extensions", "collections.abc", "collections"}


@dataclass(frozen=True)
class Hint:
    """One member of the flattened type-hint set."""

    kind: str  # builtin | none | literal | dataclass | class | dictsub | ellipsis
    name: str = ""
    args: tuple[Any, ...] = ()  # literal values, or element hints (tuple of frozensets)
    module: str = ""
    typing_alias: bool = False  # typing.Dict[...] etc. (module is 'typing': not builtin)

    def is_(self, name: str) -> bool:
        return self.kind == "builtin" and self.name == name

    @property
    def not_builtin(self) -> bool:
        return self.kind in {"dataclass", "class", "dictsub"} or self.typing_alias


def ordered(hints: Any) -> list[Hint]:
    """A hint set in an order that does not depend on the hash seed (a frozenset's order
    does): the builder's output must be the same under any PYTHONHASHSEED."""
    return sorted(hints, key=_sort_key)


def _sort_key(x: Any) -> str:
    if isinstance(x, Hint):
        return "\x00".join((x.kind, x.module, x.name, _sort_key(x.args)))
    if isinstance(x, frozenset):
        return "{" + ",".join(sorted(_sort_key(e) for e in x)) + "}"
    if isinstance(x, tuple):
        return "(" + ",".join(_sort_key(e) for e in x) + ")"
    return f"{type(x).__name__}:{x!r}"


@dataclass
class KwargsFeatures:
    """Branches present in the release's ``_compute_kwargs`` / ``get_kwargs``."""

    bool_str_none_optional: bool = False  # bool | str | None -> nargs "?" const True
    dict_subclass: bool = False  # dict subclasses are CLI dicts
    human_int_names: frozenset[str] = frozenset()
    human_int_or_auto_names: frozenset[str] = frozenset()
    none_choice: str = "none"  # what is appended to choices of Optional literals: none | str
    literal_str_metavar: bool = True  # Literal | str -> metavar (not enforced); else choices
    dataclass_from_cli: bool = False  # the JSON type first tries ``cls.from_cli(val)``
    source: str = ""

    @classmethod
    def detect(cls, index: ModuleIndex) -> KwargsFeatures:
        feats = cls()
        d = index.resolve("vllm.engine.arg_utils", "_compute_kwargs") or index.resolve(
            "vllm.engine.arg_utils", "get_kwargs")
        if d is None or not isinstance(d.node, ast.FunctionDef):
            return feats
        text = ast.unparse(d.node)
        feats.source = f"vllm/engine/arg_utils.py:{d.node.lineno}"
        feats.bool_str_none_optional = "{bool, str, type(None)}" in text
        feats.dict_subclass = "is_dict_subclass" in text
        feats.none_choice = "str" if "append('None')" in text else "none"
        feats.dataclass_from_cli = "from_cli" in text
        lit = index.resolve("vllm.engine.arg_utils", "literal_to_kwargs")
        if lit is not None and isinstance(lit.node, ast.FunctionDef):
            feats.literal_str_metavar = "metavar" in ast.unparse(lit.node)
        # the int branch: names compared with name == "..." or name in {...}
        for node in ast.walk(d.node):
            if not isinstance(node, ast.If):
                continue
            test = node.test
            if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                    and test.left.id == "name"):
                names = _const_strings(test.comparators[0], d.node)
                body_text = ast.unparse(node.body[0]) if node.body else ""
                if "human_readable_int_or_auto" in body_text:
                    feats.human_int_or_auto_names |= names
                elif "human_readable_int" in body_text:
                    feats.human_int_names |= names
        return feats


def _const_strings(node: ast.AST, scope: ast.AST) -> frozenset[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return frozenset({node.value})
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        return frozenset(e.value for e in node.elts
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    if isinstance(node, ast.Name):  # a local set assigned earlier in the function
        for sub in ast.walk(scope):
            if isinstance(sub, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == node.id for t in sub.targets):
                return _const_strings(sub.value, scope)
    return frozenset()


class TypeResolver:
    """Turns annotation expressions of one wheel into flattened ``Hint`` sets."""

    def __init__(self, index: ModuleIndex):
        self.index = index
        self._dataclass_cache: dict[tuple[str, str], bool] = {}

    # ---- names -------------------------------------------------------------------------
    def _external_name(self, module: str, node: ast.AST) -> str | None:
        """'Optional', 'Literal', ... when the name comes from typing-like modules."""
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in {"typing", "typing_extensions",
                                                                      "t", "abc"}:
                return node.attr
            return None
        if isinstance(node, ast.Name):
            entry = self.index._table(module).get(node.id)
            if entry and entry[0] == "import" and (entry[1][0] in EXTERNAL_TYPING
                                                   or not self.index.has_module(entry[1][0])):
                return entry[1][1]
            if entry is None:
                return node.id
        return None

    def is_dataclass(self, d: Definition, _depth: int = 0) -> bool:
        key = (d.module, d.name)
        if key in self._dataclass_cache:
            return self._dataclass_cache[key]
        result = False
        node = d.node
        assert isinstance(node, ast.ClassDef)
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in {"dataclass", "config", "pydantic_dataclass"}:
                result = True
        if not result and _depth < 10:
            result = any(self.is_dataclass(b, _depth + 1) for b in self.index.bases(d))
        self._dataclass_cache[key] = result
        return result

    def _class_kind(self, d: Definition) -> str:
        if self.is_dataclass(d):
            return "dataclass"
        names = {ast.unparse(b) for b in d.node.bases}  # type: ignore[attr-defined]
        if any(n.split(".")[-1] in {"TypedDict"} for n in names):
            return "typeddict"
        if any(n in {"dict"} or n.startswith("dict[") for n in names):
            return "dictsub"
        for b in self.index.bases(d):
            if self._class_kind(b) == "dictsub":
                return "dictsub"
        return "class"

    # ---- hints -------------------------------------------------------------------------
    def hints(self, module: str, node: ast.AST | None, _depth: int = 0) -> frozenset[Hint]:
        if node is None or _depth > 25:
            return frozenset({Hint("class", "?")})
        if isinstance(node, ast.Constant):
            if node.value is None:
                return frozenset({Hint("none", "NoneType")})
            if isinstance(node.value, str):
                try:
                    expr = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    return frozenset({Hint("class", node.value)})
                return self.hints(module, expr, _depth + 1)
            if node.value is Ellipsis:
                return frozenset({Hint("ellipsis")})
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.hints(module, node.left, _depth + 1) | self.hints(module, node.right,
                                                                          _depth + 1)
        if isinstance(node, ast.Subscript):
            return self._subscript(module, node, _depth)
        if isinstance(node, (ast.Name, ast.Attribute)):
            ext = self._external_name(module, node)
            if isinstance(node, ast.Name) and node.id in BUILTINS and ext == node.id:
                return frozenset({Hint("builtin", node.id)})
            if ext in TYPING_COLLECTIONS:
                return frozenset({Hint("builtin", TYPING_COLLECTIONS[ext], typing_alias=True)})
            if ext is not None and ext not in BUILTINS:
                return frozenset({Hint("class", ext, module="typing")})
            d = self.index.resolve_expr(module, node)
            if d is None:
                return frozenset({Hint("class", ast.unparse(node))})
            if d.kind == "class":
                kind = self._class_kind(d)
                return frozenset({Hint(kind, d.name, module=d.module)})
            if d.kind == "value":  # a type alias
                return self.hints(d.module, d.node, _depth + 1)
            return frozenset({Hint("class", d.name, module=d.module)})
        return frozenset({Hint("class", ast.unparse(node))})

    def _subscript(self, module: str, node: ast.Subscript, depth: int) -> frozenset[Hint]:
        origin = self._external_name(module, node.value)
        if origin is None:
            d = self.index.resolve_expr(module, node.value)
            origin = d.name if d is not None else ast.unparse(node.value)
            if d is not None and d.kind == "value":  # alias of a generic, e.g. X = Literal
                inner = self.hints(d.module, d.node, depth + 1)
                origin = next(iter(inner)).name if len(inner) == 1 else origin
        sl = node.slice
        elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if origin in {"Optional"}:
            return self.hints(module, elts[0], depth + 1) | {Hint("none", "NoneType")}
        if origin == "Union":
            out: frozenset[Hint] = frozenset()
            for e in elts:
                out |= self.hints(module, e, depth + 1)
            return out
        if origin in {"Annotated", "SkipValidation", "ClassVar", "InitVar", "Final", "Required",
                      "NotRequired"}:
            return self.hints(module, elts[0], depth + 1)
        if origin == "Literal":
            values: list[Any] = []
            for e in elts:
                for v in self._literal_values(module, e, depth):
                    if not any(v == w and type(v) is type(w) for w in values):
                        values.append(v)
            return frozenset({Hint("literal", "Literal", tuple(values))})
        name = TYPING_COLLECTIONS.get(origin, origin)
        typing_alias = origin in TYPING_COLLECTIONS
        if name in BUILTINS:
            args = tuple(self.hints(module, e, depth + 1) for e in elts)
            return frozenset({Hint("builtin", name, args, typing_alias=typing_alias)})
        base = self.hints(module, node.value, depth + 1)
        return frozenset(Hint(h.kind, h.name, (), h.module, True) if h.kind == "class" else h
                         for h in base)

    def _literal_values(self, module: str, node: ast.AST, depth: int) -> list[Any]:
        if isinstance(node, ast.Constant):
            return [node.value]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(
                node.operand, ast.Constant):
            return [-node.operand.value]
        inner = self.hints(module, node, depth + 1)
        out: list[Any] = []
        for h in ordered(inner):
            if h.kind == "literal":
                out.extend(h.args)
        return out


# ---- dataclass fields ------------------------------------------------------------------
@dataclass
class FieldInfo:
    name: str
    annotation: ast.AST
    module: str
    default: ast.AST | None
    line: int
    path: str
    doc: str | None
    owner: str


def class_fields(index: ModuleIndex, d: Definition, _depth: int = 0) -> list[FieldInfo]:
    """Dataclass fields in ``dataclasses.fields`` order (bases first)."""
    out: dict[str, FieldInfo] = {}
    if _depth < 10:
        for base in reversed(index.bases(d)):
            for f in class_fields(index, base, _depth + 1):
                out[f.name] = f
    body = d.node.body  # type: ignore[attr-defined]
    path = index.file_of(d.module) or d.path
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        ann_text = ast.unparse(stmt.annotation)
        if ann_text.startswith(("ClassVar", "typing.ClassVar", "InitVar", "KW_ONLY")) or \
                ann_text.strip("'\"").startswith("ClassVar"):
            continue
        name = stmt.target.id
        f = FieldInfo(name, stmt.annotation, d.module, stmt.value, stmt.lineno, path,
                      docstring_after(body, i), d.name)
        if name in out:
            del out[name]
        out[name] = f
    return list(out.values())


def default_text(node: ast.AST | None, index: ModuleIndex | None = None,
                 module: str = "") -> str | None:
    """Stringified default, best effort (the value as written in the source; module-level
    constants are followed)."""
    if node is None:
        return None
    if index is not None and isinstance(node, ast.Name):
        d = index.resolve(module, node.id)
        if d is not None and d.kind == "value" and isinstance(d.node, (ast.Constant, ast.BinOp)):
            return default_text(d.node)
    if isinstance(node, ast.Call):
        fname = ast.unparse(node.func)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if fname.endswith("field") or fname.endswith("Field"):
            if "default" in kw:
                return default_text(kw["default"])
            if node.args and fname.endswith("Field"):
                return default_text(node.args[0])
            if "default_factory" in kw:
                fac = kw["default_factory"]
                if isinstance(fac, ast.Name) and fac.id in {"list", "dict", "set"}:
                    return {"list": "[]", "dict": "{}", "set": "set()"}[fac.id]
                if isinstance(fac, ast.Lambda):
                    return default_text(fac.body)
                return f"<factory {ast.unparse(fac)}>"
            return None
    if isinstance(node, ast.Constant):
        return None if node.value is None else str(node.value)
    number = _arith(node)
    if number is not None:
        return str(number)
    try:
        return str(ast.literal_eval(node))
    except (ValueError, SyntaxError, TypeError):
        return ast.unparse(node)


_ARITH = {ast.Mult: lambda a, b: a * b, ast.Add: lambda a, b: a + b,
          ast.Sub: lambda a, b: a - b, ast.Pow: lambda a, b: a ** b if b < 64 else None,
          ast.LShift: lambda a, b: a << b if b < 64 else None}


def _arith(node: ast.AST) -> int | float | None:
    """Value of small constant arithmetic (``4 * 1024 * 1024``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(
            node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = _arith(node.left), _arith(node.right)
        if left is not None and right is not None:
            return _ARITH[type(node.op)](left, right)
    return None


def type_text(f: FieldInfo) -> str:
    return ast.unparse(f.annotation).strip("'\"")


# ---- the kwargs --------------------------------------------------------------------------
@dataclass
class TypeFn:
    """An argparse ``type=`` callable, named like the oracle names it."""

    repr: str
    dataclass: str | None = None  # config class for dataclass-json
    choices_literal: tuple[Any, ...] | None = None
    text: str | None = None  # source of a lambda

    @property
    def base(self) -> str:
        r = self.repr
        while r.startswith(("optional(", "parse(")):
            r = r[r.index("(") + 1: -1]
        return r


def compute_kwargs(resolver: TypeResolver, feats: KwargsFeatures, f: FieldInfo,
                   ) -> dict[str, Any]:
    """The argparse kwargs vLLM derives for one dataclass field."""
    hints = set(resolver.hints(f.module, f.annotation))
    if feats.dict_subclass:
        hints = {Hint("builtin", "dict") if h.kind == "dictsub" else h for h in hints}
    kw: dict[str, Any] = {"default": default_text(f.default, resolver.index, f.module),
                          "help": f.doc or "",
                          "_field": f}
    names = {h.name for h in hints if h.kind in {"builtin"}}
    has_none = any(h.kind == "none" for h in hints)
    dc = next((h for h in ordered(hints) if h.kind == "dataclass"), None)
    literal = next((h for h in ordered(hints) if h.kind == "literal"), None)
    plain = {h.name if h.kind in {"builtin", "none"} else h.kind for h in hints}
    if dc is not None:
        kw["type"] = TypeFn(f"dataclass-json({dc.name})", dataclass=dc.name)
        if feats.dataclass_from_cli:
            kw["_from_cli"] = True
    elif feats.bool_str_none_optional and plain == {"bool", "str", "NoneType"}:
        kw["type"] = TypeFn("str")
        kw["nargs"] = "?"
        kw["const"] = True
    elif "bool" in names:
        kw["action"] = "BooleanOptionalAction"
    elif literal is not None:
        kw.update(_literal_kwargs(literal, "str" in names and feats.literal_str_metavar))
    elif names & {"tuple", "list", "set"}:
        coll = next(n for n in ("tuple", "list", "set") if n in names)
        kw.update(_collection_kwargs(next(h for h in ordered(hints) if h.is_(coll)), coll))
    elif "int" in names:
        if f.name in feats.human_int_or_auto_names:
            kw["type"] = TypeFn("human_readable_int_or_auto")
        elif f.name in feats.human_int_names:
            kw["type"] = TypeFn("human_readable_int")
        else:
            kw["type"] = TypeFn("int")
    elif "float" in names:
        kw["type"] = TypeFn("float")
    elif "dict" in names and ("str" in names or any(h.not_builtin for h in hints)):
        kw["type"] = TypeFn("union_dict_and_str")
    elif "dict" in names:
        kw["type"] = TypeFn("parse(json.loads)")
    else:
        kw["type"] = TypeFn("str")
    t = kw.get("type")
    if isinstance(t, TypeFn) and t.choices_literal is not None and "choices" not in kw:
        kw.update(_literal_kwargs(Hint("literal", "Literal", t.choices_literal), False))
    if has_none and "bool" not in names:
        if isinstance(kw.get("type"), TypeFn):
            kw["type"] = TypeFn(f"optional({kw['type'].repr})", kw["type"].dataclass)
        if kw.get("choices"):
            kw["choices"] = list(kw["choices"]) + [
                "None" if feats.none_choice == "str" else None]
    return kw


def _literal_kwargs(h: Hint, with_str: bool) -> dict[str, Any]:
    values = list(h.args)
    try:
        values = sorted(values)
    except TypeError:
        pass
    tname = type(values[0]).__name__ if values else "str"
    key = "metavar" if with_str else "choices"
    return {"type": TypeFn(tname), key: values}


def _collection_kwargs(h: Hint, coll: str) -> dict[str, Any]:
    elems = list(h.args)
    real = [e for e in elems if not any(x.kind == "ellipsis" for x in e)]
    elem = real[0] if real else frozenset({Hint("builtin", "str")})
    has_ellipsis = len(real) != len(elems)
    nargs: Any = "+" if coll != "tuple" or has_ellipsis else len(elems)
    members = set(elem)
    lit = next((m for m in ordered(members) if m.kind == "literal"), None)
    if len(members) > 1 and lit is None:
        return {"type": TypeFn("str"), "nargs": nargs}
    if lit is not None and len(members) == 1:
        return {"type": TypeFn("Literal", choices_literal=lit.args), "nargs": nargs}
    m = ordered(members)[0]
    if m.kind == "builtin" and m.name in {"int", "float", "str", "bool"}:
        return {"type": TypeFn(m.name), "nargs": nargs}
    if m.kind == "dataclass":
        return {"type": TypeFn(m.name), "nargs": nargs}
    return {"type": TypeFn(m.name or "str"), "nargs": nargs}
