"""Which tests the check-time evaluator (engines/vllm/condition_compile.py) can evaluate:
``self.<field>`` chains, literals, operators and the pure calls and methods it knows, and
which fields a test reads. The builder records a test only when it has one of these shapes."""

from __future__ import annotations

import ast

from servelint.engines.vllm import condition_terms as runtime

# Calls the check-time evaluator evaluates: the same tables, so a recorded test is one it can run.
SAFE_CALLS = frozenset(runtime.SAFE_CALLS)
SAFE_METHODS = frozenset().union(*runtime.SAFE_METHODS.values())
_CONSTANT_NAMES = frozenset({"True", "False", "None"})


def exact_path(node: ast.AST) -> str | None:
    """``a.b`` of a plain ``self.a.b`` chain (no subscript)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join(reversed(parts)) if isinstance(node, ast.Name) and node.id == "self" else None


def self_path(node: ast.AST) -> str | None:
    """``a.b`` of ``self.a.b`` (``self.a.b[i].c``: ``a.b``, the part that is replaced)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Subscript):
            parts = []
        else:
            parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "self" and parts:
        return ".".join(reversed(parts))
    return None


def _reads(test: ast.expr) -> set[str]:
    """The longest ``self.`` attribute chains the test reads (``self.a.b`` -> ``a.b``)."""
    inner = {id(n.value) for n in ast.walk(test) if isinstance(n, ast.Attribute)}
    return {
        p
        for n in ast.walk(test)
        if isinstance(n, ast.Attribute) and id(n) not in inner and (p := self_path(n)) is not None
    }


def _evaluable(test: ast.expr) -> bool:
    """Only what the check-time walker evaluates: self.<field> chains, literals, operators,
    the safe built-ins and string methods."""
    bound = _comprehension_names(test)
    if bound is None:
        return False
    callees = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
    types = _type_operands(test)
    for node in ast.walk(test):
        if isinstance(node, ast.Name):
            if id(node) in callees and node.id in SAFE_CALLS:
                continue  # len(…), max(…): checked as a call below
            if id(node) in types or id(node) in callees and node.id == "isinstance":
                continue  # isinstance(x, dict)
            if node.id not in _CONSTANT_NAMES and node.id != "self" and node.id not in bound:
                return False
        elif isinstance(node, ast.Attribute):
            if not _self_chain(node) and not _is_method_callee(node, test):
                return False
        elif isinstance(node, ast.Call):
            if node.keywords or not (_safe_callee(node.func) or _is_type_test(node)):
                return False
        elif isinstance(
            node,
            ast.Lambda
            | ast.NamedExpr
            | ast.Await
            | ast.Yield
            | ast.YieldFrom
            | ast.SetComp
            | ast.DictComp
            | ast.GeneratorExp
            | ast.JoinedStr
            | ast.Starred
            | ast.Slice,
        ):
            return False
    return True


evaluable = _evaluable  # for the other builder modules


def _is_type_test(call: ast.Call) -> bool:
    """``isinstance(x, T)`` with T built-in types the check-time walker knows."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "isinstance"):
        return False
    if len(call.args) != 2:
        return False
    kind = call.args[1]
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return all(isinstance(n, ast.Name) and n.id in runtime.TYPE_NAMES for n in names)


def _type_operands(test: ast.expr) -> set[int]:
    """The type names of the test's ``isinstance`` calls."""
    return {
        id(n)
        for call in ast.walk(test)
        if isinstance(call, ast.Call) and _is_type_test(call)
        for n in ast.walk(call.args[1])
        if isinstance(n, ast.Name)
    }


def _comprehension_names(test: ast.expr) -> set[str] | None:
    """Names the test's list comprehensions bind (one plain generator each: ``[n for n, v in
    ((…), …) if v]``), or None for a comprehension the walker does not evaluate."""
    names: set[str] = set()
    for node in ast.walk(test):
        if not isinstance(node, ast.ListComp):
            continue
        if len(node.generators) != 1 or node.generators[0].is_async:
            return None
        target = node.generators[0].target
        parts = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(p, ast.Name) for p in parts):
            return None
        names |= {p.id for p in parts if isinstance(p, ast.Name)}
    return names


def _self_chain(node: ast.Attribute) -> bool:
    inner: ast.AST = node
    while isinstance(inner, ast.Attribute):
        inner = inner.value
    return isinstance(inner, ast.Name) and inner.id == "self"


def _is_method_callee(node: ast.Attribute, test: ast.expr) -> bool:
    return node.attr in SAFE_METHODS and any(
        isinstance(c, ast.Call) and c.func is node for c in ast.walk(test)
    )


def _safe_callee(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in SAFE_CALLS
    return isinstance(func, ast.Attribute) and func.attr in SAFE_METHODS
