"""AST helpers shared by the vLLM fact extractors (env, values, gates, image, backends).

Everything reads the wheel through ``WheelSource``; nothing is imported. Per-wheel results
that several extractors need are memoised in ``per_wheel`` (weakly keyed by the source).
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from servelint.builders.wheel import WheelSource

# Vendored trees that are not vLLM's own code paths.
VENDORED = ("vllm/vllm_flash_attn/", "vllm/third_party/", "vllm/_vendor/")

_CACHE: weakref.WeakKeyDictionary[WheelSource, dict[str, Any]] = weakref.WeakKeyDictionary()


def per_wheel(src: WheelSource, key: str, make: Callable[[], Any]) -> Any:
    """Compute ``make()`` once per wheel."""
    slot = _CACHE.setdefault(src, {})
    if key not in slot:
        slot[key] = make()
    return slot[key]


def py_files(src: WheelSource) -> list[str]:
    return per_wheel(src, "py_files", lambda: sorted(
        n for n in src.names
        if n.startswith("vllm/") and n.endswith(".py") and not n.startswith(VENDORED)))


def files_with(src: WheelSource, *needles: str) -> list[str]:
    """Package .py files whose text contains any of ``needles``."""
    return [n for n in py_files(src) if any(s in src.read(n) for s in needles)]


def config_classes_with(src: WheelSource, needle: str) -> Iterator[tuple[str, ast.ClassDef]]:
    """(path, class) of every class under ``vllm/config/`` in a file whose text holds
    ``needle``."""
    for path in files_with(src, needle):
        if not path.startswith("vllm/config/"):
            continue
        tree = parse(src, path)
        for cls in tree.body if tree is not None else []:
            if isinstance(cls, ast.ClassDef):
                yield path, cls


def pydantic_validators(method: ast.FunctionDef) -> Iterator[tuple[str, str, list[str]]]:
    """(decorator, mode, field names) of each ``@field_validator(...)`` /
    ``@model_validator(...)`` on a method; mode defaults to pydantic's ``after``."""
    for deco in method.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = ast.unparse(deco.func).rsplit(".", 1)[-1]
        if name not in ("field_validator", "model_validator"):
            continue
        mode = next(
            (
                k.value.value
                for k in deco.keywords
                if k.arg == "mode" and isinstance(k.value, ast.Constant)
            ),
            "after",
        )
        fields = [
            a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        yield name, mode, fields


def parse(src: WheelSource, name: str) -> ast.Module | None:
    try:
        return src.parse(name)
    except SyntaxError:
        return None


def ref(path: str, node: ast.AST) -> str:
    return f"{path}:{getattr(node, 'lineno', 0)}"


def module_file(src: WheelSource, dotted: str) -> str | None:
    """Wheel path of a dotted module name (``vllm.a.b`` -> ``vllm/a/b.py``)."""
    base = dotted.replace(".", "/")
    for cand in (base + ".py", base + "/__init__.py"):
        if src.exists(cand):
            return cand
    return None


def file_module(path: str) -> str:
    mod = path[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def module_consts(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments."""
    out: dict[str, str] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
        value = getattr(node, "value", None)
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = value.value
    return out


def text_of(node: ast.AST | None, consts: dict[str, str] | None = None) -> str | None:
    """Static text of a string expression; unknown f-string parts become ``…``."""
    consts = consts or {}
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) \
                    and v.value.id in consts:
                parts.append(consts[v.value.id])
            else:
                parts.append("…")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = text_of(node.left, consts), text_of(node.right, consts)
        if left is not None and right is not None:
            return left + right
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, ast.Call) and node.args:  # "...".format(...) or str(...)
        return text_of(node.args[0], consts) if isinstance(node.func, ast.Name) else None
    return None


def str_list(node: ast.AST | None) -> list[str] | None:
    """A literal list/tuple/set of strings."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        out = []
        for elt in node.elts:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                return None
            out.append(elt.value)
        return out
    return None


def walk_with_parents(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Every node with the chain of its ancestors (outermost first)."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        chain = parents + [node]
        for child in reversed(list(ast.iter_child_nodes(node))):
            stack.append((child, chain))


def walk_lines(tree: ast.AST, lines: set[int]) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Like ``walk_with_parents`` but only into nodes whose line span holds one of ``lines``."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        chain = parents + [node]
        for child in ast.iter_child_nodes(node):
            start = getattr(child, "lineno", None)
            if start is None:
                stack.append((child, chain))
                continue
            end = getattr(child, "end_lineno", start) or start
            if any(start <= ln <= end for ln in lines):
                stack.append((child, chain))


def lines_with(text: str, *needles: str) -> set[int]:
    return {i for i, line in enumerate(text.splitlines(), 1) if any(n in line for n in needles)}


def _defs_in(tree: ast.Module, name: str) -> list[ast.AST]:
    out: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name:
            out.append(node)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            out.append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            out.append(node)
    return out


def find_defs(src: WheelSource, name: str) -> list[tuple[str, ast.AST]]:
    """Module-level classes, functions and assignments named ``name`` (text-prefiltered)."""
    def make() -> list[tuple[str, ast.AST]]:
        needles = (f"class {name}", f"def {name}(", f"\n{name} =", f"\n{name}:")
        hits = []
        for path in files_with(src, *needles):
            tree = parse(src, path)
            if tree is not None:
                hits += [(path, node) for node in _defs_in(tree, name)]
        return hits
    return per_wheel(src, f"defs:{name}", make)


def find_def(src: WheelSource, name: str, prefer: str = "") -> tuple[str, ast.AST] | None:
    """The module-level definition of ``name`` (first path containing ``prefer``)."""
    hits = find_defs(src, name)
    for path, node in hits:
        if prefer in path:
            return path, node
    return hits[0] if hits else None


def class_fields(src: WheelSource, cls_name: str, prefer: str = "vllm/config"
                 ) -> dict[str, ast.AnnAssign]:
    found = find_def(src, cls_name, prefer)
    if not found or not isinstance(found[1], ast.ClassDef):
        return {}
    return {n.target.id: n for n in found[1].body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def literal_values(src: WheelSource, node: ast.AST | None, path: str = "",
                   depth: int = 0) -> list[str] | None:
    """Values of ``Literal[...]`` (following aliases like ``Literal["a", Other]``)."""
    if node is None or depth > 6:
        return None
    if isinstance(node, ast.Subscript) and _name(node.value) == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out: list[str] = []
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                out.append(item.value)
            else:
                sub = literal_values(src, item, path, depth + 1)
                if sub is None:
                    return None
                out.extend(sub)
        return out
    if isinstance(node, ast.Name):
        found = find_def(src, node.id, path.rsplit("/", 1)[0])
        if found and isinstance(found[1], ast.Assign | ast.AnnAssign):
            return literal_values(src, found[1].value, found[0], depth + 1)
    return None


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def enum_members(cls: ast.ClassDef) -> list[tuple[str, ast.AST]]:
    """Members of an Enum class body (UPPER_CASE = value), in order."""
    out = []
    for node in cls.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper():
            out.append((node.targets[0].id, node.value))
    return out


_SPEC = re.compile(r"(?<![<>=!~])(>=|==|~=|<=|<|>)\s*v?(\d+(?:\.\d+)*(?:\.?(?:rc|post|dev)\d+)?)")


def specifier_in(text: str) -> str:
    """A version specifier stated in a message ("(>= 0.2.0)" -> ">=0.2.0")."""
    found = _SPEC.findall(text)
    return ",".join(f"{op}{ver}" for op, ver in found)


def module_literals(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``NAME = <literal>`` (names the module never reassigns)."""
    out: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name = node.targets[0].id
            if name in seen:
                out.pop(name, None)
                continue
            seen.add(name)
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            out[name] = node.value
    return out
