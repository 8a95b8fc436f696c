"""A small static evaluator over the Python sources of an SGLang wheel (no import).

It resolves the constant expressions SGLang builds its parser from: literals, module-level
choice lists (followed through imports, ``[*A, "x"]``, ``A + B``, ``list(D.keys())``,
``set(...)``, ``sorted(...)``), class-level registries (``ReasoningParser.DetectorMap``) and
module-level mutations (``X.append``/``extend``/``add``/``update``). Anything else evaluates to
``UNKNOWN`` so callers can record "cannot be checked" instead of guessing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from servelint.engines._build.astutil import absolute_module
from servelint.engines._build.wheel import WheelSource


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Any = _Unknown()
_MUTATORS = {"append", "extend", "add", "update", "insert"}
_BUILTINS = {"True": True, "False": False, "None": None}


def literal(node: ast.expr | None, default: Any = None) -> Any:
    """``ast.literal_eval`` of ``node``: None when there is no node, ``default`` when it is
    not a literal."""
    try:
        return ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


@dataclass
class ModuleInfo:
    name: str
    path: str
    tree: ast.Module
    assigns: dict[str, list[ast.stmt]] = field(default_factory=dict)  # name -> stmts in order
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # alias -> (mod, attr)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)


def collect_imports(node_body: list[ast.stmt], module: str, is_pkg: bool,
                    into: dict[str, tuple[str, str | None]]) -> None:
    for st in node_body:
        if isinstance(st, ast.ImportFrom):
            mod = st.module or ""
            if st.level:
                mod = absolute_module(module, st.module, st.level, is_pkg)
            for alias in st.names:
                into[alias.asname or alias.name] = (mod, alias.name)
        elif isinstance(st, ast.Import):
            for alias in st.names:
                if alias.asname:
                    into[alias.asname] = (alias.name, None)
                else:
                    top = alias.name.split(".")[0]
                    into[top] = (top, None)


class Evaluator:
    """Evaluate expressions of one wheel's modules statically."""

    def __init__(self, src: WheelSource):
        self.src = src
        self._modules: dict[str, ModuleInfo | None] = {}
        self._stack: set[tuple[str, str]] = set()
        # module -> line: while a module-level statement is evaluated, names of that module
        # only see the statements above it (module code runs top to bottom)
        self._limits: dict[str, int] = {}

    # ---- modules -------------------------------------------------------------
    def module_path(self, name: str) -> str | None:
        base = name.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if self.src.exists(cand):
                return cand
        return None

    def module(self, name: str) -> ModuleInfo | None:
        if name in self._modules:
            return self._modules[name]
        path = self.module_path(name)
        info = None
        if path:
            tree = self.src.parse(path)
            info = ModuleInfo(name, path, tree)
            collect_imports(tree.body, name, path.endswith("__init__.py"), info.imports)
            for st in tree.body:
                self._index_stmt(info, st)
        self._modules[name] = info
        return info

    def _index_stmt(self, info: ModuleInfo, st: ast.stmt) -> None:
        if isinstance(st, ast.Assign):
            for tgt in st.targets:
                if isinstance(tgt, ast.Name):
                    info.assigns.setdefault(tgt.id, []).append(st)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
            info.assigns.setdefault(st.target.id, []).append(st)
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            info.assigns.setdefault(st.target.id, []).append(st)
        elif (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
              and isinstance(st.value.func, ast.Attribute)
              and st.value.func.attr in _MUTATORS and isinstance(st.value.func.value, ast.Name)):
            info.assigns.setdefault(st.value.func.value.id, []).append(st)
        elif isinstance(st, ast.ClassDef):
            info.classes[st.name] = st
        elif isinstance(st, ast.FunctionDef):
            info.functions[st.name] = st
        elif isinstance(st, ast.If):  # `if TYPE_CHECKING:` / try-imports are not values
            pass

    # ---- names ---------------------------------------------------------------
    def lookup(self, module: str, name: str) -> Any:
        """Value of a module-level name: a Python value, a ("class", mod, ClassDef)
        / ("module", name) / ("function", mod, FunctionDef) marker, or UNKNOWN."""
        key = (module, name)
        if key in self._stack:
            return UNKNOWN
        info = self.module(module)
        if info is None:
            sub = self.module(f"{module}.{name}")
            return ("module", f"{module}.{name}") if sub else UNKNOWN
        self._stack.add(key)
        try:
            if name in info.assigns:
                return self._run_assigns(info, name)
            if name in info.classes:
                return ("class", module, info.classes[name])
            if name in info.functions:
                return ("function", module, info.functions[name])
            if name in info.imports:
                mod, attr = info.imports[name]
                if attr is None:
                    return ("module", mod)
                if self.module(f"{mod}.{attr}"):
                    return ("module", f"{mod}.{attr}")
                return self.lookup(mod, attr)
            return UNKNOWN
        finally:
            self._stack.discard(key)

    def _run_assigns(self, info: ModuleInfo, name: str) -> Any:
        value: Any = UNKNOWN
        limit = self._limits.get(info.name)
        for st in info.assigns[name]:
            if limit is not None and st.lineno >= limit:
                break
            saved = self._limits.get(info.name)
            self._limits[info.name] = st.lineno
            try:
                if isinstance(st, ast.Assign | ast.AnnAssign):
                    value = self.eval(st.value, info.name)
                elif isinstance(st, ast.AugAssign):
                    value = self._binop(value, st.op, self.eval(st.value, info.name))
                elif isinstance(st, ast.Expr):
                    value = self._mutate(value, st.value, info.name, {})
            finally:
                if saved is None:
                    self._limits.pop(info.name, None)
                else:
                    self._limits[info.name] = saved
        return value

    def _mutate(self, value: Any, call: ast.Call, module: str, local: dict) -> Any:
        args = [self.eval(a, module, local) for a in call.args]
        method = call.func.attr  # type: ignore[attr-defined]
        if value is UNKNOWN or any(a is UNKNOWN for a in args):
            return UNKNOWN
        try:
            if isinstance(value, list | set | dict):
                value = type(value)(value)
                getattr(value, method)(*args)
                return value
        except (TypeError, AttributeError, ValueError):
            pass
        return UNKNOWN

    def class_attr(self, module: str, cls: ast.ClassDef, attr: str) -> Any:
        for st in cls.body:
            targets = st.targets if isinstance(st, ast.Assign) else (
                [st.target] if isinstance(st, ast.AnnAssign) and st.value else [])
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                return self.eval(st.value, module)  # type: ignore[union-attr]
        return UNKNOWN

    # ---- expressions -----------------------------------------------------------
    def eval(self, node: ast.expr | None, module: str, local: dict | None = None) -> Any:
        local = local or {}
        try:
            return self._eval(node, module, local)
        except RecursionError:
            return UNKNOWN

    def _eval(self, node: ast.expr | None, module: str, local: dict) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            out: list = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    inner = self._eval(elt.value, module, local)
                    if not isinstance(inner, list | tuple | set | dict | frozenset):
                        return UNKNOWN
                    out.extend(inner)
                else:
                    val = self._eval(elt, module, local)
                    if val is UNKNOWN:
                        return UNKNOWN
                    out.append(val)
            if isinstance(node, ast.Tuple):
                return tuple(out)
            return set(out) if isinstance(node, ast.Set) else out
        if isinstance(node, ast.Dict):
            result: dict = {}
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    inner = self._eval(v, module, local)
                    if not isinstance(inner, dict):
                        return UNKNOWN
                    result.update(inner)
                    continue
                key = self._eval(k, module, local)
                if key is UNKNOWN or isinstance(key, list | dict | set):
                    return UNKNOWN
                val = self._eval(v, module, local)
                result[key] = val  # values may be UNKNOWN (classes): keys still count
            return result
        if isinstance(node, ast.Name):
            if node.id in local:
                return local[node.id]
            if node.id in _BUILTINS:
                return _BUILTINS[node.id]
            return self.lookup(module, node.id)
        if isinstance(node, ast.Attribute):
            base = self._eval(node.value, module, local)
            if isinstance(base, tuple) and len(base) >= 2 and base[0] == "module":
                return self.lookup(base[1], node.attr)
            if isinstance(base, tuple) and len(base) == 3 and base[0] == "class":
                return self.class_attr(base[1], base[2], node.attr)
            return UNKNOWN
        if isinstance(node, ast.BinOp):
            return self._binop(self._eval(node.left, module, local), node.op,
                               self._eval(node.right, module, local))
        if isinstance(node, ast.Call):
            return self._call(node, module, local)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            base = self._eval(node.value, module, local)
            key = self._eval(node.slice, module, local)
            if isinstance(base, list | tuple | dict) and key is not UNKNOWN:
                try:
                    return base[key]
                except (KeyError, IndexError, TypeError):
                    return UNKNOWN
            return UNKNOWN
        if isinstance(node, ast.UnaryOp):
            val = self._eval(node.operand, module, local)
            if isinstance(val, int | float) and not isinstance(val, bool):
                if isinstance(node.op, ast.USub):
                    return -val
                if isinstance(node.op, ast.UAdd):
                    return val
            if isinstance(node.op, ast.Not) and val is not UNKNOWN and not isinstance(val, tuple):
                return not val
            return UNKNOWN
        return UNKNOWN

    @staticmethod
    def _binop(left: Any, op: ast.operator, right: Any) -> Any:
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        try:
            if isinstance(op, ast.Add):
                return left + right
            if isinstance(op, ast.BitOr) and isinstance(left, set | dict):
                return left | right
            if isinstance(op, ast.Sub) and isinstance(left, set | int | float):
                return left - right
            numbers = (isinstance(left, int | float) and isinstance(right, int | float))
            if numbers and isinstance(op, ast.Mult):
                return left * right
            if numbers and isinstance(op, ast.LShift | ast.Pow) and isinstance(right, int) \
                    and 0 <= right < 64:
                return left << right if isinstance(op, ast.LShift) else left ** right
            if isinstance(op, ast.Mult) and isinstance(left, list | str) and isinstance(right, int):
                return left * right
        except TypeError:
            return UNKNOWN
        return UNKNOWN

    def _call(self, node: ast.Call, module: str, local: dict) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in {"keys", "values", "copy"} \
                and not node.args:
            base = self._eval(func.value, module, local)
            if isinstance(base, dict):
                return list(getattr(base, func.attr)())
            if func.attr == "copy" and isinstance(base, list | set):
                return type(base)(base)
            return UNKNOWN
        if isinstance(func, ast.Name) and func.id in {"list", "set", "sorted", "tuple",
                                                        "frozenset"}:
            if not node.args and not node.keywords:
                return {"list": [], "set": set(), "tuple": (), "frozenset": frozenset(),
                        "sorted": UNKNOWN}[func.id]
            if len(node.args) != 1:
                return UNKNOWN
            arg = self._eval(node.args[0], module, local)
            if not isinstance(arg, list | tuple | set | dict | frozenset):
                return UNKNOWN
            items = list(arg)
            if func.id == "sorted":
                try:
                    return sorted(items)
                except TypeError:
                    return UNKNOWN
            return {"list": list, "set": set, "tuple": tuple, "frozenset": frozenset}[
                func.id](items)
        if isinstance(func, ast.Name) and not node.args and not node.keywords:
            target = local.get(func.id) if func.id in local else self.lookup(module, func.id)
            if isinstance(target, tuple) and len(target) == 3 and target[0] == "function":
                return self.function_result(target[1], target[2])
        return UNKNOWN

    def function_result(self, module: str, fn: ast.FunctionDef) -> Any:
        """Value of a no-argument helper returning a registry: the last ``return``.

        In-function imports are honoured; earlier conditional returns are ignored."""
        local: dict[str, Any] = {}
        imports: dict[str, tuple[str, str | None]] = {}
        collect_imports([st for st in ast.walk(fn) if isinstance(st, ast.ImportFrom | ast.Import)],
                        module, False, imports)
        for alias, (mod, attr) in imports.items():
            local[alias] = ("module", mod) if attr is None else self.lookup(mod, attr)
        returns = [st for st in fn.body if isinstance(st, ast.Return)]
        if not returns:
            return UNKNOWN
        return self.eval(returns[-1].value, module, local)
