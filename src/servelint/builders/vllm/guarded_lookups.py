"""Registry lookups a config class method makes under guards over its own fields.

``ReasoningConfig.initialize_token_ids`` (vllm/config/reasoning.py, 0.21.0–0.27.x) looks the
parser up only ``if self.reasoning_parser is not None and (not reasoning_start_str or not
reasoning_end_str)``, after an early ``return`` on its private token-id fields: the
default ``""`` is looked up (and refused) unless both strings are set. value_checks.py
keeps only lookups made unconditionally or under ``if self.f:``; this module keeps the
others, with their guard as a test the check-time walker evaluates.

The guard is read by the validator walker itself (condition_walk.py): the statement that
makes the lookup is replaced by a ``raise`` and the method walked as a validator, so locals,
early returns and assignments are handled as for any check. A lookup is kept only when:

- the walker records that ``raise`` (its guards read only fields the launch decides);
- the method is called somewhere in the wheel (``.initialize_token_ids(``);
- each assignment ``EngineArgs`` makes to the option's object (``self.reasoning_config.
  reasoning_parser = self.reasoning_parser``) has a guard over the dests (``changed_when``):
  where one of them may hold, the field is not the launch's value and nothing is judged.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Any

from servelint.builders.astutil import assigned_targets, dotted
from servelint.builders.vllm.condition_shapes import _reads
from servelint.builders.vllm.condition_walk import walk_method
from servelint.builders.vllm.engine_build import field_defaults
from servelint.builders.vllm.facts_common import (
    config_classes_with,
    files_with,
    find_def,
    module_literals,
    parse,
    ref,
)
from servelint.builders.wheel import WheelSource

_MARK = "servelint: the registry lookup"


@dataclass(frozen=True)
class GuardedLookup:
    cls: str
    field: str
    test: str  # holds where the method looks the field's value up
    source: str  # path:line of the lookup
    defaults: dict[str, Any]  # the defaults of the fields the test and the lookup read

    def entry(self, changed_when: list[str]) -> dict[str, Any]:
        return {
            "cls": self.cls,
            "field": self.field,
            "test": self.test,
            "source": self.source,
            "defaults": self.defaults,
            "changed_when": changed_when,
        }


def guarded_lookups(
    src: WheelSource, getter: str, covered: set[tuple[str, str]]
) -> list[GuardedLookup]:
    """The ``…getter(self.f)`` lookups in config class methods that ``covered`` (the
    unconditional ones) leaves out, each with the guard it is made under."""
    out: list[GuardedLookup] = []
    literals: dict[str, dict[str, ast.expr]] = {}  # per file
    for path, cls in config_classes_with(src, f"{getter}("):
        if path not in literals:
            literals[path] = module_literals(src.parse(path))
        out += _class_lookups(src, path, literals[path], cls, getter, covered)
    return out


def _class_lookups(
    src: WheelSource,
    path: str,
    literals: dict[str, ast.expr],
    cls: ast.ClassDef,
    getter: str,
    covered: set[tuple[str, str]],
) -> list[GuardedLookup]:
    fields = {
        n.target.id
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    defaults = field_defaults(src, cls, path)
    out: list[GuardedLookup] = []
    for method in methods.values():
        for call in ast.walk(method):
            name = _looked_up(call, getter)
            if name not in fields or (cls.name, name) in covered or not _called(src, method):
                continue
            test = _guard(path, methods, literals, method, call)
            if test is None:
                continue
            read = {p.split(".")[0] for p in _reads(ast.parse(test, mode="eval").body)} | {name}
            if not read <= defaults.keys():
                continue  # a field whose default the source does not state
            known = {f: defaults[f] for f in sorted(read)}
            out.append(GuardedLookup(cls.name, name, test, ref(path, call), known))
    return out


def _looked_up(node: ast.AST, getter: str) -> str | None:
    """``f`` of a ``X.getter(self.f)`` call."""
    if not (
        isinstance(node, ast.Call)
        and dotted(node.func).endswith(f".{getter}")
        and len(node.args) == 1
    ):
        return None
    arg = dotted(node.args[0])
    return arg.removeprefix("self.") if arg.startswith("self.") and arg.count(".") == 1 else None


def _called(src: WheelSource, method: ast.FunctionDef) -> bool:
    """Some module of the wheel calls ``….<method>(``."""
    return bool(files_with(src, f".{method.name}("))


def _guard(
    path: str,
    methods: dict[str, ast.FunctionDef],
    consts: dict[str, ast.expr],
    method: ast.FunctionDef,
    call: ast.Call,
) -> str | None:
    """The test under which ``method`` reaches ``call``, as the walker records it."""
    twin = copy.deepcopy(method)
    line = _replace(twin.body, call)
    if line is None:
        return None
    walk = walk_method(path, methods, consts, twin)
    found = [c for c in walk.out if c["message"] == f"LookupError: {_MARK}"]
    hits = [c for c in found if c["source"] == f"{path}:{line}"]
    return hits[0]["test"] if len(hits) == 1 and not walk.poisoned else None


def _replace(body: list[ast.stmt], call: ast.Call) -> int | None:
    """Replace the statement of ``body`` (at any depth) that holds ``call`` by ``raise
    LookupError(_MARK)``; its line, or None when no plain statement holds it."""
    for i, st in enumerate(body):
        if not any(_same(n, call) for n in ast.walk(st)):
            continue
        if isinstance(st, ast.If):
            for inner in (st.body, st.orelse):
                line = _replace(inner, call)
                if line is not None:
                    return line
            return None  # the lookup is in the `if` test itself
        if not isinstance(st, ast.Assign | ast.Expr | ast.AnnAssign):
            return None  # inside a loop, try, with: not followed
        mark = ast.Call(ast.Name("LookupError", ast.Load()), [ast.Constant(_MARK)], [])
        body[i] = ast.copy_location(ast.Raise(exc=mark, cause=None), st)
        return st.lineno
    return None


def _same(node: ast.AST, call: ast.Call) -> bool:
    return (
        isinstance(node, ast.Call)
        and (node.lineno, node.col_offset) == (call.lineno, call.col_offset)
        and ast.dump(node) == ast.dump(call)
    )


def changed_when(src: WheelSource, dest: str) -> list[str] | None:
    """The guards (over the dests) of every assignment EngineArgs' methods make to ``self.
    <dest>`` or below it; None when one is unconditional or undecidable, or when code
    outside EngineArgs assigns to a ``….<dest>`` chain."""
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    path, cls = found
    if _assigned_outside(src, dest, path, cls):
        return None
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    out: set[str] = set()
    for method in methods.values():
        lines = _assignments(method, dest)
        if not lines:
            continue
        walk = walk_method(path, methods, {}, method)
        notes = [
            note
            for key, kept in (walk.guarded.bounds.items() if walk.guarded is not None else [])
            if key == dest or key.startswith(dest + ".")
            for note in kept
        ]
        if len(notes) < len(lines) or any(bound is None for bound, _ in notes):
            return None  # one is unconditional, or the walk stopped before it
        out |= {ast.unparse(bound) for bound, _ in notes if bound is not None}
    return sorted(out)


def _assignments(tree: ast.AST, dest: str) -> list[int]:
    """Lines of the assignments to a chain through ``.<dest>``."""
    out: list[int] = []
    for node in ast.walk(tree):
        targets = assigned_targets(node)
        for target in targets:
            chain = dotted(target) if not isinstance(target, ast.Tuple | ast.List) else ""
            elts = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
            texts = [chain] if chain else [ast.unparse(e) for e in elts]
            if any(f".{dest}." in t + "." for t in texts):
                out.append(node.lineno)
    return out


def _assigned_outside(src: WheelSource, dest: str, path: str, cls: ast.ClassDef) -> bool:
    inside = set(range(cls.lineno, (cls.end_lineno or cls.lineno) + 1))
    for name in files_with(src, f".{dest}"):
        tree = parse(src, name) if name.startswith("vllm/") else None
        lines = set(_assignments(tree, dest)) if tree is not None else set()
        if lines - (inside if name == path else set()):
            return True
    return False
