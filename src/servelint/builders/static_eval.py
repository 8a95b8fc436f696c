"""Module-level constants of an engine's sources, evaluated statically (no import).

The strict ``Expressions`` evaluator (engines/_build/expressions.py) with names read from
``ModuleIndex.info``: literals, module-level choice lists followed through imports
(``[*A, "x"]``, ``A + B``, ``list(D.keys())``, ``set(...)``, ``sorted(...)``), class-level
registries (``ReasoningParser.DetectorMap``), Enum members (``[m.value for m in Mode]``),
no-argument helpers that return a value, and module-level mutations
(``X.append``/``extend``/``add``/``update``). Anything else is ``UNKNOWN`` so callers record
"cannot be checked" instead of guessing. The SGLang, TensorRT-LLM and Dynamo builders read
their values through it; the vLLM builder's interpreter is the same evaluator in partial mode.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from servelint.builders.astutil import ModuleIndex, ModuleInfo, collect_imports
from servelint.builders.expressions import UNKNOWN, Expressions, Opaque, _arithmetic
from servelint.builders.wheel import ParsedFiles

__all__ = ["UNKNOWN", "EnumMember", "Evaluator", "literal"]

_BUILTINS = {"True": True, "False": False, "None": None}


def literal(node: ast.expr | None, default: Any = None) -> Any:
    """``ast.literal_eval`` of ``node``: None when there is no node, ``default`` when it is
    not a literal."""
    try:
        return ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


class Evaluator(Expressions):
    """Evaluate expressions of one wheel's (or source tree's) modules statically."""

    STRICT = True

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
                    value = _combine(value, st.op, self.eval(st.value, info.name))
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

    # ---- what names, attributes and calls mean (the Expressions hooks) --------------------
    def eval(
        self, node: ast.AST | None, module: str, env: dict[str, Any] | None = None, depth: int = 0
    ) -> Any:
        try:
            return self._eval(node, module, dict(env) if env else {}, depth)
        except RecursionError:
            return UNKNOWN

    def name_value(self, name: str, module: str, env: dict[str, Any]) -> Any:
        if name in env:
            return env[name]
        if name in _BUILTINS:
            return _BUILTINS[name]
        return self.lookup(module, name)

    def attribute_value(self, node: ast.Attribute, module: str, env: dict[str, Any], depth: int):
        base = self._eval(node.value, module, env, depth)
        if isinstance(base, tuple) and len(base) >= 2 and base[0] == "module":
            return self.lookup(base[1], node.attr)
        if _is_marker(base, "class"):
            return self.class_attr(base[1], base[2], node.attr)
        if isinstance(base, EnumMember) and node.attr in {"name", "value"}:
            return getattr(base, node.attr)
        return UNKNOWN

    def is_marker(self, value: Any) -> bool:
        return isinstance(value, tuple) and 2 <= len(value) <= 3 and value[0] in _MARKERS

    def call_value(self, node: ast.Call, module: str, env: dict[str, Any], depth: int) -> Any:
        return self._call(node, module, env)

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

    # ---- enums ------------------------------------------------------------------------
    def iterate(self, value: Any) -> Any:
        """The items ``for x in value`` sees: a container's, an Enum class's members."""
        if _is_marker(value, "class"):
            return self.enum_members(value[1], value[2])
        return super().iterate(value)

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


_MARKERS = {"module", "class", "function"}


def _combine(left: Any, op: ast.operator, right: Any) -> Any:
    """``left op= right`` of a module-level augmented assignment."""
    if isinstance(left, Opaque) or isinstance(right, Opaque):
        return UNKNOWN
    return _arithmetic(op, left, right)


def _is_marker(value: Any, kind: str) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and value[0] == kind


def _base_name(node: ast.expr) -> str:
    return ast.unparse(node).rsplit(".", 1)[-1]
