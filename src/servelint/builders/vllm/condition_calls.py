"""Calls the condition walker (builder/condition_walk.py) follows out of a validator: a
module-level function, or a static/class method of a module-level class, called with
``self.<field>`` chains as its arguments (``KVConnectorFactory.get_connector_class(
self.kv_transfer_config)``). The callee's body comes back with each parameter replaced by
the caller's chain (``kv_transfer_config.kv_connector`` -> ``self.kv_transfer_config.
kv_connector``), so the walker records its ``if COND: raise`` on the caller's fields (with
the callee's file:line) and sees what it assigns. Anything else (keywords, ``*args``, an
argument that is not a ``self`` chain, a default the call leaves out, a name not imported
from the wheel): no callee, the walker treats the call as before."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from servelint.builders.vllm.condition_shapes import exact_path
from servelint.builders.vllm.facts_common import module_file, parse
from servelint.builders.wheel import WheelSource


@dataclass
class Callee:
    path: str  # wheel file of the callee
    body: list[ast.stmt]  # parameters replaced by the caller's self chains
    owner: ast.ClassDef | None  # the class of a classmethod (its ``cls.`` calls)


class Callees:
    """Resolves the calls of one module's validators (imports: module level and local)."""

    def __init__(self, src: WheelSource, tree: ast.Module | None, path: str):
        self.src = src
        self.path = path
        self.imports = _imports(tree.body) if tree is not None else {}
        self.local = _module_defs(tree) if tree is not None else {}

    def for_method(self, method: ast.FunctionDef) -> Callees:
        """The same, with the names ``method`` imports in its body (lazy imports)."""
        out = copy.copy(self)
        out.imports = {**self.imports, **_imports(method.body)}
        return out

    def resolve(self, call: ast.Call, owner: ast.ClassDef | None, owner_path: str) -> Callee | None:
        if call.keywords or not all(exact_path(a) for a in call.args):  # each a ``self.x…`` chain
            return None
        func = call.func
        found: tuple[str, ast.AST] | None = None
        if isinstance(func, ast.Name):
            found = self._lookup(func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == "cls" and owner is not None:
                found = (owner_path, owner)
            else:
                found = self._lookup(func.value.id)
            if found is None or not isinstance(found[1], ast.ClassDef):
                return None
            klass = found[1]
            method = next(
                (m for m in klass.body if isinstance(m, ast.FunctionDef) and m.name == func.attr),
                None,
            )
            kind = _method_kind(method) if method is not None else ""
            if method is None or not kind:
                return None
            return _bind(found[0], method, call.args, kind, klass)
        if found is None or not isinstance(found[1], ast.FunctionDef):
            return None
        return _bind(found[0], found[1], call.args, "function", None)

    def _lookup(self, name: str) -> tuple[str, ast.AST] | None:
        if name in self.local:
            return self.path, self.local[name]
        target = self.imports.get(name)
        if target is None:
            return None
        module, attr = target
        path = module_file(self.src, module)
        tree = parse(self.src, path) if path else None
        if tree is None or path is None:
            return None
        node = _module_defs(tree).get(attr)
        return (path, node) if node is not None else None


def _bind(
    path: str, method: ast.FunctionDef, args: list[ast.expr], kind: str, owner: ast.ClassDef | None
) -> Callee | None:
    spec = method.args
    if spec.vararg or spec.kwarg or spec.kwonlyargs or spec.posonlyargs:
        return None
    params = [a.arg for a in spec.args]
    if kind == "classmethod":
        params = params[1:]
    if len(params) != len(args):
        return None  # a default left out, or a call the walker does not match
    chains = dict(zip(params, args, strict=True))
    body = [_Rebind(chains).visit(copy.deepcopy(st)) for st in method.body]
    return Callee(path, body, owner if kind == "classmethod" else None)


class _Rebind(ast.NodeTransformer):
    """Parameter names -> the caller's ``self`` chains (loads and stores alike: a callee
    that assigns ``param.x`` changes the caller's field)."""

    def __init__(self, chains: dict[str, ast.expr]):
        self.chains = chains

    def visit_Name(self, node: ast.Name) -> ast.AST:
        chain = self.chains.get(node.id)
        if chain is None:
            return node
        new = copy.deepcopy(chain)
        _set_ctx(new, node.ctx)
        return ast.copy_location(new, node)


def _set_ctx(node: ast.expr, ctx: ast.expr_context) -> None:
    if isinstance(node, ast.Attribute):
        node.ctx = ctx


def _method_kind(method: ast.FunctionDef) -> str:
    names = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    if len(method.decorator_list) != len(names):
        return ""
    if names == {"classmethod"}:
        return "classmethod"
    if names == {"staticmethod"}:
        return "staticmethod"
    return ""


def _imports(body: list[ast.stmt]) -> dict[str, tuple[str, str]]:
    """``from vllm.x import Name [as alias]`` -> {alias: ("vllm.x", "Name")} (absolute only),
    in ``body`` and the blocks under it (not in nested functions)."""
    out: dict[str, tuple[str, str]] = {}
    for sub in _statements_in(body):
        if isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
            for alias in sub.names:
                out[alias.asname or alias.name] = (sub.module, alias.name)
    return out


def _module_defs(tree: ast.Module) -> dict[str, ast.AST]:
    """Module-level functions and classes defined once (a name bound twice: none)."""
    out: dict[str, ast.AST] = {}
    seen: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            if node.name in seen:
                out.pop(node.name, None)
                continue
            seen.add(node.name)
            if not node.decorator_list or isinstance(node, ast.ClassDef):
                out[node.name] = node
    return out


def _statements_in(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for st in body:
        out.append(st)
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        for name in ("body", "orelse", "finalbody"):
            out += _statements_in(getattr(st, name, []) or [])
        for handler in getattr(st, "handlers", []) or []:
            out += _statements_in(handler.body)
    return out
