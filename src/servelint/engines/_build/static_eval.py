"""A small static evaluator over the Python sources of an SGLang wheel (no import).

It resolves the constant expressions SGLang builds its parser from: literals, module-level
choice lists (followed through imports, ``[*A, "x"]``, ``A + B``, ``list(D.keys())``,
``set(...)``, ``sorted(...)``), class-level registries (``ReasoningParser.DetectorMap``) and
module-level mutations (``X.append``/``extend``/``add``/``update``). Anything else evaluates to
``UNKNOWN`` so callers can record "cannot be checked" instead of guessing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from servelint.engines._build.astutil import ModuleIndex, ModuleInfo, collect_imports
from servelint.engines._build.wheel import ParsedFiles


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Any = _Unknown()
_BUILTINS = {"True": True, "False": False, "None": None}


def literal(node: ast.expr | None, default: Any = None) -> Any:
    """``ast.literal_eval`` of ``node``: None when there is no node, ``default`` when it is
    not a literal."""
    try:
        return ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


class Evaluator:
    """Evaluate expressions of one wheel's modules statically."""

    def __init__(self, src: ParsedFiles | ModuleIndex):
        self.index = src if isinstance(src, ModuleIndex) else ModuleIndex(src)
        self.src = self.index.src
        self._stack: set[tuple[str, str]] = set()
        # module -> line: while a module-level statement is evaluated, names of that module
        # only see the statements above it (module code runs top to bottom)
        self._limits: dict[str, int] = {}

    def module(self, name: str) -> ModuleInfo | None:
        return self.index.info(name)

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
            targets = (
                st.targets
                if isinstance(st, ast.Assign)
                else ([st.target] if isinstance(st, ast.AnnAssign) and st.value else [])
            )
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
            if isinstance(base, EnumMember) and node.attr in {"name", "value"}:
                return getattr(base, node.attr)
            return UNKNOWN
        if isinstance(node, ast.BinOp):
            return self._binop(
                self._eval(node.left, module, local), node.op, self._eval(node.right, module, local)
            )
        if isinstance(node, ast.Call):
            return self._call(node, module, local)
        if isinstance(node, ast.ListComp):
            return self._listcomp(node, module, local)
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
            numbers = isinstance(left, int | float) and isinstance(right, int | float)
            if numbers and isinstance(op, ast.Mult):
                return left * right
            if (
                numbers
                and isinstance(op, ast.LShift | ast.Pow)
                and isinstance(right, int)
                and 0 <= right < 64
            ):
                return left << right if isinstance(op, ast.LShift) else left**right
            if isinstance(op, ast.Mult) and isinstance(left, list | str) and isinstance(right, int):
                return left * right
        except TypeError:
            return UNKNOWN
        return UNKNOWN

    def _call(self, node: ast.Call, module: str, local: dict) -> Any:
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in {"keys", "values", "copy"}
            and not node.args
        ):
            base = self._eval(func.value, module, local)
            if isinstance(base, dict):
                return list(getattr(base, func.attr)())
            if func.attr == "copy" and isinstance(base, list | set):
                return type(base)(base)
            return UNKNOWN
        if isinstance(func, ast.Name) and func.id in {
            "list",
            "set",
            "sorted",
            "tuple",
            "frozenset",
        }:
            if not node.args and not node.keywords:
                return {
                    "list": [],
                    "set": set(),
                    "tuple": (),
                    "frozenset": frozenset(),
                    "sorted": UNKNOWN,
                }[func.id]
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
            return {"list": list, "set": set, "tuple": tuple, "frozenset": frozenset}[func.id](
                items
            )
        if isinstance(func, ast.Name) and not node.args and not node.keywords:
            target = local.get(func.id) if func.id in local else self.lookup(module, func.id)
            if isinstance(target, tuple) and len(target) == 3 and target[0] == "function":
                return self.function_result(target[1], target[2])
        return UNKNOWN

    def function_locals(self, module: str, fn: ast.AST) -> dict[str, Any]:
        """The names a function's own imports bind (``from .x import Y`` inside its body)."""
        imports: dict[str, tuple[str, str | None]] = {}
        collect_imports(
            [st for st in ast.walk(fn) if isinstance(st, ast.ImportFrom | ast.Import)],
            module,
            self.index.is_package(module),
            imports,
        )
        local: dict[str, Any] = {}
        for alias, (mod, attr) in imports.items():
            if attr is None:
                local[alias] = ("module", mod)
            elif self.module(f"{mod}.{attr}"):
                local[alias] = ("module", f"{mod}.{attr}")
            else:
                local[alias] = self.lookup(mod, attr)
        return local

    def function_result(self, module: str, fn: ast.FunctionDef) -> Any:
        """Value of a no-argument helper returning a registry: the last ``return``.

        In-function imports are honoured; earlier conditional returns are ignored."""
        returns = [st for st in fn.body if isinstance(st, ast.Return)]
        if not returns:
            return UNKNOWN
        return self.eval(returns[-1].value, module, self.function_locals(module, fn))

    # ---- comprehensions and enums ------------------------------------------------------
    def _listcomp(self, node: ast.ListComp, module: str, local: dict) -> Any:
        """``[f(x) for x in ITEMS]`` with one generator and no condition."""
        gen = node.generators[0] if len(node.generators) == 1 else None
        if gen is None or gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
            return UNKNOWN
        items = self.iterate(self._eval(gen.iter, module, local))
        if items is UNKNOWN:
            return UNKNOWN
        out = []
        for item in items:
            value = self._eval(node.elt, module, {**local, gen.target.id: item})
            if value is UNKNOWN:
                return UNKNOWN
            out.append(value)
        return out

    def iterate(self, value: Any) -> Any:
        """The items ``for x in value`` sees: a container's, an Enum class's members."""
        if _is_marker(value, "class"):
            return self.enum_members(value[1], value[2])
        if isinstance(value, tuple) and value and value[0] in {"module", "function"}:
            return UNKNOWN
        if isinstance(value, list | tuple | set | frozenset | dict):
            return list(value)
        return UNKNOWN

    def enum_members(self, module: str, cls: ast.ClassDef) -> Any:
        """The members of an Enum class in definition order (UNKNOWN when one value is not
        constant, or the class is not an Enum)."""
        if not any(_base_name(b).endswith(("Enum", "Flag")) for b in cls.bases):
            return UNKNOWN
        out = []
        for st in cls.body:
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
                continue
            target = st.targets[0]
            if not isinstance(target, ast.Name) or target.id.startswith("_"):
                continue
            value = self.eval(st.value, module)
            if value is UNKNOWN:
                return UNKNOWN
            out.append(EnumMember(target.id, value))
        return out


@dataclass(frozen=True)
class EnumMember:
    """One member of an Enum class: ``.name`` and ``.value``."""

    name: str
    value: Any


def _is_marker(value: Any, kind: str) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and value[0] == kind


def _base_name(node: ast.expr) -> str:
    return ast.unparse(node).rsplit(".", 1)[-1]
