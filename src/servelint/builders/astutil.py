"""Static name resolution over the Python sources of a wheel (no import).

``ModuleIndex`` maps dotted module names to files, follows ``from X import Y``
(relative ones too, through the one ``absolute_module``) and finds the class, function or
constant a name stands for; ``ModuleIndex.info`` is the ordered index of a module's top-level
statements the static evaluator (``static_eval.Evaluator``) runs. Every builder (vLLM, SGLang,
TensorRT-LLM, Dynamo) resolves names through it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from servelint.builders.lazy_modules import proxied_module
from servelint.builders.wheel import ParsedFiles

# module-level calls that change a value in place (``CHOICES.append("x")``)
MUTATORS = {"append", "extend", "add", "update", "insert"}


@dataclass(frozen=True)
class Definition:
    """What a name resolves to: a class, function, or assigned expression."""

    module: str
    name: str
    node: ast.AST  # ClassDef | FunctionDef | expression (value of an assignment)
    kind: str  # class | function | value | module

    @property
    def path(self) -> str:
        return module_file_hint(self.module)


def module_file_hint(module: str) -> str:
    return module.replace(".", "/") + ".py"


def absolute_module(module: str, target: str | None, level: int, is_pkg: bool) -> str:
    """The module ``from {"." * level}{target} import ...`` names inside ``module``."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    if not is_pkg:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([target] if target else []))


@dataclass
class ModuleInfo:
    """A module's top-level statements by what they define, in source order."""

    name: str
    path: str
    tree: ast.Module
    assigns: dict[str, list[ast.stmt]] = field(default_factory=dict)  # name -> stmts in order
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # alias -> (mod, attr)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)


def collect_imports(
    node_body: list[ast.stmt], module: str, is_pkg: bool, into: dict[str, tuple[str, str | None]]
) -> None:
    """alias -> (module, attribute or None) for the imports among ``node_body``."""
    for st in node_body:
        if isinstance(st, ast.ImportFrom):
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


def _index_statement(info: ModuleInfo, st: ast.stmt) -> None:
    if isinstance(st, ast.Assign):
        for tgt in st.targets:
            if isinstance(tgt, ast.Name):
                info.assigns.setdefault(tgt.id, []).append(st)
    elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
        info.assigns.setdefault(st.target.id, []).append(st)
    elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
        info.assigns.setdefault(st.target.id, []).append(st)
    elif (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr in MUTATORS
        and isinstance(st.value.func.value, ast.Name)
    ):
        info.assigns.setdefault(st.value.func.value.id, []).append(st)
    elif isinstance(st, ast.ClassDef):
        info.classes[st.name] = st
    elif isinstance(st, ast.FunctionDef):
        info.functions[st.name] = st
    # `if TYPE_CHECKING:` blocks and try-imports are not values


def _is_type_checking(test: ast.AST) -> bool:
    return ast.unparse(test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def iter_top_statements(body: list[ast.stmt], _late: list[ast.stmt] | None = None):
    """Top-level statements, descending into if/try blocks.

    ``if TYPE_CHECKING:`` bodies come last (runtime definitions win over them).
    """
    late: list[ast.stmt] = [] if _late is None else _late
    for stmt in body:
        if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
            yield from iter_top_statements(stmt.orelse, late)
            late.extend(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from iter_top_statements(stmt.body, late)
            yield from iter_top_statements(stmt.orelse, late)
        elif isinstance(stmt, ast.Try):
            yield from iter_top_statements(stmt.body, late)
            for handler in stmt.handlers:
                yield from iter_top_statements(handler.body, late)
            yield from iter_top_statements(stmt.orelse, late)
        else:
            yield stmt
    if _late is None:
        yield from iter_top_statements(late, [])


class ModuleIndex:
    """Resolve names to definitions across the modules of one wheel."""

    def __init__(self, src: ParsedFiles):
        self.src = src
        self._files: dict[str, str] = {}
        for name in src.names:
            if not name.endswith(".py"):
                continue
            mod = name[:-3].replace("/", ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            self._files[mod] = name
        self._tables: dict[str, dict[str, tuple[str, Any]]] = {}
        self._stars: dict[str, list[str]] = {}
        self._infos: dict[str, ModuleInfo | None] = {}

    def modules(self) -> list[str]:
        return sorted(self._files)

    def has_module(self, module: str) -> bool:
        return module in self._files

    def file_of(self, module: str) -> str | None:
        return self._files.get(module)

    def tree(self, module: str) -> ast.Module | None:
        path = self._files.get(module)
        if path is None:
            return None
        try:
            return self.src.parse(path)
        except SyntaxError:
            return None

    def is_package(self, module: str) -> bool:
        return (self._files.get(module) or "").endswith("__init__.py")

    def info(self, module: str) -> ModuleInfo | None:
        """The top-level statements of ``module`` by name (None: no such module or a file
        that does not parse)."""
        if module in self._infos:
            return self._infos[module]
        tree = self.tree(module)
        info = None
        if tree is not None:
            info = ModuleInfo(module, self._files[module], tree)
            collect_imports(tree.body, module, self.is_package(module), info.imports)
            for st in tree.body:
                _index_statement(info, st)
        self._infos[module] = info
        return info

    def _table(self, module: str) -> dict[str, tuple[str, Any]]:
        """name -> ("def", node) | ("value", expr) | ("import", (module, name)) | ("module", mod)."""
        if module in self._tables:
            return self._tables[module]
        table: dict[str, tuple[str, Any]] = {}
        self._tables[module] = table
        tree = self.tree(module)
        if tree is None:
            return table
        is_pkg = self.is_package(module)
        for stmt in iter_top_statements(tree.body):
            if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                table[stmt.name] = ("def", stmt)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        table.setdefault(target.id, ("value", stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    table.setdefault(stmt.target.id, ("value", stmt.value))
            elif hasattr(ast, "TypeAlias") and isinstance(stmt, ast.TypeAlias):
                table[stmt.name.id] = ("value", stmt.value)
            elif isinstance(stmt, ast.ImportFrom):
                base = absolute_module(module, stmt.module, stmt.level, is_pkg)
                for alias in stmt.names:
                    if alias.name == "*":
                        self._stars.setdefault(module, []).append(base)
                        continue
                    table.setdefault(alias.asname or alias.name, ("import", (base, alias.name)))
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        table.setdefault(alias.asname, ("module", alias.name))
                    else:
                        top = alias.name.split(".")[0]
                        table.setdefault(top, ("module", top))
        return table

    def resolve(self, module: str, name: str, _depth: int = 0) -> Definition | None:
        """The definition ``name`` stands for inside ``module``."""
        if _depth > 20:
            return None
        entry = self._table(module).get(name)
        if entry is None:
            for star in self._stars.get(module, []):
                if star != module and star in self._files:
                    found = self.resolve(star, name, _depth + 1)
                    if found is not None:
                        return found
            # a submodule of a package: ``from vllm.config import cache``
            sub = f"{module}.{name}"
            if sub in self._files:
                return Definition(sub, name, ast.Module(body=[], type_ignores=[]), "module")
            return None
        kind, payload = entry
        if kind == "def":
            k = "class" if isinstance(payload, ast.ClassDef) else "function"
            return Definition(module, name, payload, k)
        if kind == "value":
            return Definition(module, name, payload, "value")
        if kind == "module":
            return Definition(payload, name, ast.Module(body=[], type_ignores=[]), "module")
        target_mod, target_name = payload
        sub = f"{target_mod}.{target_name}"
        if sub in self._files and target_name not in self._table(target_mod):
            return Definition(sub, target_name, ast.Module(body=[], type_ignores=[]), "module")
        if target_mod not in self._files:
            return None
        return self.resolve(target_mod, target_name, _depth + 1)

    def resolve_expr(self, module: str, node: ast.AST) -> Definition | None:
        """Resolve a Name or dotted Attribute (``vllm.config.X``, ``mod.X``)."""
        if isinstance(node, ast.Name):
            return self.resolve(module, node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(module, node.value)
            if base is None:
                return None
            if base.kind == "module":
                return self.resolve(base.module, node.attr)
            if base.kind == "value" and (proxied := proxied_module(self, base)):
                return self.resolve(proxied, node.attr)  # a LazyLoader(..., "vllm.x") value
            if base.kind == "class":
                for stmt in base.node.body:  # type: ignore[attr-defined]
                    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name == node.attr:
                        k = "class" if isinstance(stmt, ast.ClassDef) else "function"
                        return Definition(base.module, node.attr, stmt, k)
                    if isinstance(stmt, ast.Assign):
                        for t in stmt.targets:
                            if isinstance(t, ast.Name) and t.id == node.attr:
                                return Definition(base.module, node.attr, stmt.value, "value")
        return None

    def find_class(self, name: str, prefer: tuple[str, ...] = ()) -> Definition | None:
        """A class by name, searched in preferred modules first, then everywhere under vllm."""
        for mod in prefer:
            d = self.resolve(mod, name)
            if d is not None and d.kind == "class":
                return d
        needle = f"class {name}"
        mods = sorted(self._files, key=lambda m: (not m.startswith(prefer_roots(prefer)), m))
        for mod in mods:
            try:
                if needle not in self.src.read(self._files[mod]):
                    continue
            except KeyError:
                continue
            entry = self._table(mod).get(name)
            if entry and entry[0] == "def" and isinstance(entry[1], ast.ClassDef):
                return Definition(mod, name, entry[1], "class")
        return None

    def method(self, cls: Definition, name: str) -> Definition | None:
        """A method of a class, searched along its (statically resolved) bases."""
        seen = 0
        todo = [cls]
        while todo and seen < 20:
            seen += 1
            cur = todo.pop(0)
            for stmt in cur.node.body:  # type: ignore[attr-defined]
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                    return Definition(cur.module, name, stmt, "function")
            todo.extend(self.bases(cur))
        return None

    def bases(self, cls: Definition) -> list[Definition]:
        out = []
        for base in cls.node.bases:  # type: ignore[attr-defined]
            node = base.value if isinstance(base, ast.Subscript) else base
            d = self.resolve_expr(cls.module, node)
            if d is not None and d.kind == "class":
                out.append(d)
        return out


def prefer_roots(prefer: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in prefer) or ("vllm",)


def docstring_after(body: list[ast.stmt], index: int) -> str | None:
    """The attribute docstring: a string expression right after statement ``index``."""
    if index + 1 < len(body):
        nxt = body[index + 1]
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            return nxt.value.value
    return None


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for Name/Attribute chains, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def assigned_targets(node: ast.AST) -> list[ast.expr]:
    """The targets ``node`` stores to when it is an (augmented, annotated) assignment."""
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    return []


def class_constants(cls: ast.ClassDef) -> list[tuple[str, ast.expr]]:
    """The public ``NAME = value`` statements of a class body (an enum's members), in order."""
    return [
        (st.targets[0].id, st.value)
        for st in cls.body
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and not st.targets[0].id.startswith("_")
    ]


def first_line(text: str | None) -> str:
    """First line of a help/docstring text, whitespace-normalised like argparse shows it."""
    if not text:
        return ""
    for line in text.strip().splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""
