"""The writes of one file of the wheel, for the whole-wheel write index (write_index.py, whose
docstring says what counts as a write): each site with its receiver and name, read once
per file content."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from servelint.builders.vllm.facts_common import parse, per_wheel
from servelint.builders.wheel import WheelSource

_SET_CALLS = frozenset({"setattr", "delattr", "__setattr__", "__delattr__"})


@dataclass(frozen=True, slots=True)
class Write:
    """One site that may write an attribute: ``name`` None is dynamic (``pattern`` the
    names its key can take, None: any); ``owner`` the class whose ``self`` it writes (None:
    any object)."""

    where: str  # path:line
    function: str  # the enclosing function's qualified name (Class.method), "" at module level
    owner: str | None
    name: str | None
    pattern: str | None = None
    fresh: str | None = None  # the receiver is a local bound once to a call of this callee

    def may_write(self, name: str) -> bool:
        if self.name is not None:
            return self.name == name
        return self.pattern is None or re.fullmatch(self.pattern, name) is not None


def _by_content(src: WheelSource, path: str, kind: str, make: Callable[[], Any]) -> Any:
    """What ``make`` derives from the file ``path``, once per wheel (``per_wheel``)."""
    return per_wheel(src, f"file_writes {kind} {path}", make)


# ---- the writes of one file ------------------------------------------------------------------
_DYNAMIC_TEXT = re.compile(r"setattr|delattr|__dict__|vars\(")


def _lines_with(text: str, name: str, pattern: re.Pattern[str]) -> set[int]:
    """The line numbers (from 1) of the lines holding ``name`` that ``pattern`` matches."""
    out: set[int] = set()
    line, counted = 1, 0
    at = text.find(name)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if pattern.search(text, start, end):
            line += text.count("\n", counted, start)
            counted = start
            out.add(line)
        at = text.find(name, end)
    return out


def _lines(text: str, pattern: re.Pattern[str]) -> set[int]:
    """The line numbers (from 1) where ``pattern`` matches."""
    return {text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)}


def _writes(src: WheelSource, path: str, lines: set[int]) -> list[Write]:
    """The writes of the statements of ``path`` that span one of ``lines`` (each statement
    read once per wheel; the others are not visited)."""
    state = _by_content(src, path, "writes", lambda: {"done": set(), "out": {}})
    todo = lines - state["done"]
    if todo:
        tree = parse(src, path)
        if tree is None:  # a file the builder cannot read may write anything
            state["out"][(path, 0)] = Write(f"{path}:0", "", None, None)
        else:
            text = src.read(path)
            literals = _by_content(
                src, path, "literals", lambda: _module_literals(tree, "global" in text)
            )
            visitor = _Writes(path, literals, todo)
            visitor.visit(tree)
            for w in visitor.out:
                state["out"].setdefault(w, w)
        state["done"] |= todo
    return list(state["out"].values())


class _Writes(ast.NodeVisitor):
    def __init__(self, path: str, literals: dict[str, ast.expr], lines: set[int]):
        self.path = path
        self.lines = sorted(lines)
        self.out: list[Write] = []
        self.classes: list[str] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda] = []
        self.owners: list[str | None] = []  # per function: the class its `self`/`cls` is
        self.literals = literals

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not self._spans(node):
            return  # no candidate line in it
        super().visit(node)

    def _spans(self, node: ast.stmt) -> bool:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        end = getattr(node, "end_lineno", None) or node.lineno
        i = bisect.bisect_left(self.lines, start)
        return i < len(self.lines) and self.lines[i] <= end

    # scopes
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        saved = self.functions, self.owners
        self.functions, self.owners = [], []  # a class body does not see the method's self
        self.generic_visit(node)
        self.functions, self.owners = saved
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        method = bool(self.classes) and not self.functions  # directly in a class body
        owner: str | None
        if method and params and params[0] in ("self", "cls"):
            owner = self.classes[-1]
        elif self.owners and "self" not in params and "cls" not in params:
            owner = self.owners[-1]  # a closure over the method's self
        else:
            owner = None
        self.functions.append(node)
        self.owners.append(owner)
        self.generic_visit(node)
        self.functions.pop()
        self.owners.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _function(self) -> str:
        if not self.functions:
            return ""
        name = getattr(self.functions[-1], "name", "<lambda>")
        top = self.functions[0]
        in_class = self.classes and len(self.functions) == 1
        return f"{self.classes[-1]}.{name}" if in_class else getattr(top, "name", "<lambda>")

    def _owner(self, receiver: ast.expr) -> str | None:
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") and self.owners:
            return self.owners[-1]
        return None

    def _add(
        self, node: ast.AST, receiver: ast.expr, name: str | None, pattern: str | None = None
    ) -> None:
        self.out.append(
            Write(
                f"{self.path}:{getattr(node, 'lineno', 0)}",
                self._function(),
                self._owner(receiver),
                name,
                pattern,
                self._fresh(receiver),  # a new object built here: no earlier one changes
            )
        )

    # writes
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._add(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            receiver = _dict_of(node.value)
            if receiver is not None:
                key = node.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self._add(node, receiver, key.value)
                else:
                    self._add(node, receiver, None, self._key_pattern(key))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if last in _SET_CALLS:
            receiver, key = _set_call_parts(node)
            if receiver is not None:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self._add(node, receiver, key.value)
                else:
                    self._add(node, receiver, None, self._key_pattern(key))
        elif last == "update" and isinstance(func, ast.Attribute):
            receiver = _dict_of(func.value)
            if receiver is not None:
                self._add(node, receiver, None)
        self.generic_visit(node)

    # what a dynamic key can be
    def _key_pattern(self, key: ast.expr | None) -> str:
        if isinstance(key, ast.JoinedStr):
            parts = [
                re.escape(v.value) if isinstance(v, ast.Constant) else ".*" for v in key.values
            ]
            return "".join(parts)
        if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
            return self._key_pattern(key.left) + self._key_pattern(key.right)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return re.escape(key.value)
        if isinstance(key, ast.Name):
            table = self._loop_table(key.id)
            if table is not None:
                return "(?:" + ("|".join(re.escape(k) for k in sorted(table)) or "(?!)") + ")"
        return ".*"  # a name not from a literal table: any

    def _loop_table(self, name: str) -> set[str] | None:
        """The literal strings ``name`` takes: it is bound only as the (first) target of
        ``for`` loops of the enclosing function, each over a literal table."""
        if not self.functions:
            return None
        func = self.functions[-1]
        if name in _params(func):
            return None
        found: set[str] = set()
        in_loops: set[int] = set()
        for node in _own_nodes(func):
            if isinstance(node, ast.For) and name in _target_names(node.target):
                table = self._literal_keys(node.iter)
                if table is None or _first_name(node.target) != name:
                    return None
                found |= table
                in_loops |= {id(n) for n in ast.walk(node.target)}
        binds = [n for n in _own_nodes(func) if _binds(n, name)]
        if not binds or any(id(n) not in in_loops for n in binds):
            return None
        return found

    def _literal_keys(self, node: ast.expr) -> set[str] | None:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("items", "keys")
            and not node.args
        ):
            node = node.func.value
        if isinstance(node, ast.Name) and node.id in self.literals:
            node = self.literals[node.id]
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
        keys = value.keys() if isinstance(value, dict) else value
        if not isinstance(keys, tuple | list | set | frozenset | type({}.keys())):
            return None
        out: set[str] = set()
        for item in keys:
            head = item[0] if isinstance(item, tuple) and item else item
            if not isinstance(head, str):
                return None
            out.add(head)
        return out

    def _fresh(self, receiver: ast.expr) -> str | None:
        """The callee, when ``receiver`` is a local this function binds once, to its call
        (the index then asks whether that builds a new object)."""
        if not isinstance(receiver, ast.Name) or not self.functions:
            return None
        func = self.functions[-1]
        name = receiver.id
        if name in _params(func):
            return None
        binds = [n for n in _own_nodes(func) if _binds(n, name)]
        if len(binds) != 1:
            return None
        st = next(
            (
                n
                for n in _own_nodes(func)
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] is binds[0]
            ),
            None,
        )
        if st is None or not isinstance(st.value, ast.Call):
            return None
        return ast.unparse(st.value.func)


def _set_call_parts(call: ast.Call) -> tuple[ast.expr | None, ast.expr | None]:
    """(receiver, key) of ``setattr(x, k, v)``, ``object.__setattr__(x, k, v)``,
    ``Base.__setattr__(x, k, v)``, ``super().__setattr__(k, v)``, ``x.__setattr__(k, v)``."""
    func, args = call.func, call.args
    if isinstance(func, ast.Name) or (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and (func.value.id == "object" or func.value.id[:1].isupper())
    ):
        return (args[0] if args else None), (args[1] if len(args) > 1 else None)
    if not isinstance(func, ast.Attribute):
        return None, None
    receiver = func.value
    if isinstance(receiver, ast.Call) and ast.unparse(receiver.func) == "super":
        receiver = ast.Name("self", ast.Load())
    return receiver, (args[0] if args else None)


def _dict_of(node: ast.expr) -> ast.expr | None:
    """``x`` of ``x.__dict__`` / ``vars(x)``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "vars"
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _params(func: ast.AST) -> set[str]:
    if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        a = func.args
        names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        return set(names)
    return set()


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """The nodes of ``func``'s own scope, and of nested functions that declare a name
    ``nonlocal`` (conservatively: every nested function's nodes)."""
    return [n for n in ast.walk(func) if n is not func]


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store | ast.Del):
        return True
    if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
        return True
    if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
        return True
    if isinstance(node, ast.arg) and node.arg == name:
        return True  # a nested function's or lambda's parameter of that name
    if isinstance(node, ast.ExceptHandler) and node.name == name:
        return True
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
        node.name == name
    )


def _target_names(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _first_name(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return None


def _module_literals(tree: ast.Module, has_global: bool) -> dict[str, ast.expr]:
    """Module-level ``NAME = <literal>`` bound once (``has_global``: a function may rebind
    module names, so every ``global`` statement is looked for)."""
    out: dict[str, ast.expr] = {}
    counts: dict[str, int] = {}
    for top in tree.body:  # names bound at module level (a function's own are its locals)
        if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            counts[top.name] = counts.get(top.name, 0) + 1
            if not has_global:
                continue
        for node in ast.walk(top):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
            elif isinstance(node, ast.Global):
                for n in node.names:
                    counts[n] = counts.get(n, 0) + 2
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and counts.get(node.targets[0].id) == 1
        ):
            out[node.targets[0].id] = node.value
    return out
