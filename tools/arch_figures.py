"""Structure figures of the package, read from its source (nothing is imported or run).

    python tools/arch_figures.py [SRC]        # SRC defaults to src/servelint

Prints:
  * process-wide memos: module-level functions decorated with ``functools.cache`` /
    ``lru_cache``, module-level ``Lru(...)`` objects, and module-level dicts (``{}``,
    ``dict()``) that a function of the module writes by key (``D[k] = v``, ``setdefault``);
  * imports inside functions, outside the profile builders (files under a ``build/``,
    ``_build/`` or ``builder/`` folder, or named ``build*.py``);
  * import cycles: strongly connected components of more than one module in the graph of
    imports between the package's modules, module-level imports only and counting the
    imports inside functions too (``TYPE_CHECKING`` blocks left out);
  * engine-name tests outside ``engines/`` and ``builders/``: lines naming ``"vllm"``, ``"sglang"``,
    ``"trtllm"`` or ``"dynamo"`` as a string literal.
Each figure lists its places with ``-v``.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ENGINE_NAME = re.compile(r'"(vllm|sglang|trtllm|dynamo)"')
MEMO_DECORATORS = {"cache", "lru_cache", "functools.cache", "functools.lru_cache"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _is_builder(rel: Path) -> bool:
    parts = rel.parts
    return any(p in ("build", "_build", "builder", "builders") for p in parts[:-1]) or rel.name.startswith(
        "build")


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _memos(tree: ast.Module) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    dicts: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_dotted(d) in MEMO_DECORATORS for d in node.decorator_list):
                found.append((node.lineno, f"@cache {node.name}"))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            value = node.value
            if isinstance(value, ast.Call) and _dotted(value).split(".")[-1] == "Lru":
                found += [(node.lineno, f"Lru {n}") for n in names]
            elif (isinstance(value, ast.Dict) and not value.keys) or (
                    isinstance(value, ast.Call) and _dotted(value) == "dict" and not value.args):
                for n in names:
                    dicts[n] = node.lineno
    written: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in dicts:
                    written.add(node.value.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                base = node.func.value
                if (node.func.attr == "setdefault" and isinstance(base, ast.Name)
                        and base.id in dicts):
                    written.add(base.id)
    found += [(dicts[n], f"dict {n}") for n in sorted(written)]
    return sorted(found)


def _imports(tree: ast.Module, module: str, is_pkg: bool
             ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(module-level imports, imports inside functions) as (line, absolute module)."""
    top: list[tuple[int, str]] = []
    inner: list[tuple[int, str]] = []

    def absolute(node: ast.ImportFrom) -> list[str]:
        if node.level:
            base = module.split(".") if is_pkg else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            head = ".".join(base + ([node.module] if node.module else []))
        else:
            head = node.module or ""
        return [head] + [f"{head}.{a.name}" for a in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                names = absolute(child)
            if isinstance(child, ast.Call) and ast.unparse(child.func).endswith("on_first_use") \
                    and child.args and isinstance(child.args[0], ast.Constant):
                names, in_function = [str(child.args[0].value)], True  # a deferred import
            for n in names:
                (inner if in_function else top).append((child.lineno, n))
            visit(child, inside)

    visit(tree, False)
    return top, inner


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:  # Tarjan, iterative over an explicit stack
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("src", nargs="?", default="src/servelint")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    root = Path(args.src).resolve()
    files = sorted(p for p in root.rglob("*.py") if "data" not in p.relative_to(root).parts)
    modules = {_module_name(root, p): p for p in files}
    memos: list[str] = []
    inner_count: list[str] = []
    engine_tests: list[str] = []
    top_graph: dict[str, set[str]] = {m: set() for m in modules}
    all_graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        rel = path.relative_to(root)
        text = path.read_text()
        tree = ast.parse(text)
        memos += [f"{rel}:{line} {what}" for line, what in _memos(tree)]
        top, inner = _imports(tree, mod, path.name == "__init__.py")
        if not _is_builder(rel):
            inner_count += [f"{rel}:{line} {name}" for line, name in inner]
        for edges, imports in ((top_graph, top), (all_graph, top + inner)):
            for _, name in imports:
                if name in modules and name != mod:
                    edges[mod].add(name)
        if rel.parts[0] not in ("engines", "builders"):  # engine-owned packages
            engine_tests += [f"{rel}:{i}: {line.strip()}"
                             for i, line in enumerate(text.splitlines(), 1)
                             if ENGINE_NAME.search(line)]
    # an `import a.b` or `from a import b` statement is counted once, not per name
    statements = sorted({s.rsplit(" ", 1)[0] for s in inner_count})
    figures = [
        ("process-wide memos", memos),
        ("imports inside functions (outside the builders)", statements),
        ("import cycles, module-level imports", [" ".join(c) for c in _cycles(top_graph)]),
        ("import cycles, counting imports inside functions",
         [" ".join(c) for c in _cycles(all_graph)]),
        ("engine-name tests outside engines/ and builders/", engine_tests),
    ]
    for title, items in figures:
        print(f"{len(items):5d}  {title}")
        if args.verbose:
            for item in items:
                print(f"         {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
