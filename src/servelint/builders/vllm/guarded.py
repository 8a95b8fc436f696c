"""Fields a validator assigns only under guards: when is a field still the launch's value?

The statement walker (condition_walk.py) notes, for every ``self.<path>`` it sees assigned,
an over-approximation of the guards the assignment sits under, written over the launch's
values (its ``bound``), and the value assigned when it is a literal. A later test reading
the path is kept as ``test and unchanged``: ``unchanged`` is the negation of every bound of
the paths it reads, so the test holds only where none of those assignments ran.

A bound is the conjunction of its guards' conjuncts ``c``, each over-approximated:

- ``c`` reads only fields not yet assigned: ``c`` itself;
- ``c`` reads one assigned field: ``c or bound_1 or …`` over its earlier assignments, leaving
  out those whose literal value makes ``c`` false (``self.method = "ngram"`` before ``if
  self.method == "suffix"``): were none of the others run, ``c`` saw the launch's value;
- anything else (not evaluable at check time, the draft model's config, too long):
  dropped, i.e. ``True``.

An assignment whose bound is ``True`` (no decidable guard) leaves nothing: a test reading
the field is dropped, as before. Every step only weakens a bound, so a recorded test holds
only where the engine's own test holds.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from servelint.builders.vllm import assigned_values
from servelint.builders.vllm.model_split import conjuncts
from servelint.engines.vllm import conditions as runtime

# one assignment: (bound over the launch's values or None = always, literal value or None)
Assigned = tuple[ast.expr | None, ast.expr | None]
_MAX_TEXT = 8000  # a longer unchanged-expression is not recorded: the test is dropped
_MAX_INNER = 2000  # a longer over-approximated guard conjunct is dropped (True)
_MAX_BOUND = 900  # a bound keeps conjuncts up to this length (weaker: still sound)
_MAX_ALTERNATIVE = 150  # … and as an alternative of a conjunct, up to this one
_FLIP: dict[type, type] = {
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


class Guarded:
    """The assignments (bound, literal value) of each assigned ``self.<path>`` of one walk."""

    def __init__(
        self,
        evaluable: Callable[[ast.expr], bool],
        reads: Callable[[ast.expr], set[str]],
        mutated: set[str],
        bounds: dict[str, list[Assigned]] | None = None,
        values: dict[str, list[Any]] | None = None,
        env: dict[str, Any] | None = None,
    ):
        self.evaluable = evaluable
        self.reads = reads
        self.mutated = mutated  # the walk's changed paths; one without a note: always changed
        self.bounds: dict[str, list[Assigned]] = {k: list(v) for k, v in (bounds or {}).items()}
        # per path, each assignment's exact guard and known value (assigned_values.py)
        self.values: dict[str, list[Any]] = {k: list(v) for k, v in (values or {}).items()}
        self.env = env or {}  # the release's env registry: what `envs.NAME` reads by default
        self.seeded = {k: len(v) for k, v in self.bounds.items()}  # assigned by earlier methods
        # a guard's over-approximation, taken when the `if` is met (later assignments, e.g.
        # in an elif sibling, do not change what it tested): id -> (guard, bound)
        self.stars: dict[int, tuple[ast.expr, ast.expr | None]] = {}
        self.clean: dict[int, tuple[ast.expr, ast.expr | None]] = {}  # id -> (guard, unchanged)
        # reads a hook met so far may have changed (after_hooks.py): a guard over them is
        # not over the launch's values
        self.unsure: Callable[[set[str]], bool] = lambda reads: False

    def at_guard(self, guard: ast.expr) -> ast.expr:
        """``guard`` is tested here: note its over-approximation now, and when what it
        reads is still the launch's value (``unchanged`` now: later assignments do not
        change what it tested)."""
        self.stars[id(guard)] = (guard, self._over(guard))
        self.clean[id(guard)] = (guard, self.unchanged(self.reads(guard)))
        return guard

    def unchanged_where_read(
        self, guards: list[ast.expr], cond: ast.expr | None
    ) -> ast.expr | None:
        """Each of ``guards`` saw the launch's values where it was tested, and ``cond``
        (tested now) sees them: the conjunction of their ``unchanged`` expressions."""
        terms: list[ast.expr] = []
        for guard in guards:
            noted = self.clean.get(id(guard))
            found = (
                noted[1]
                if noted is not None and noted[0] is guard
                else (self.unchanged(self.reads(guard)))
            )
            if found is None:
                return None
            terms.append(found)
        if cond is not None:
            found = self.unchanged(self.reads(cond))
            if found is None:
                return None
            terms.append(found)
        parts = [
            p
            for t in terms
            for p in conjuncts(t)
            if not (isinstance(p, ast.Constant) and p.value is True)
        ]
        unique = list({ast.unparse(p): p for p in parts}.values())
        if not unique:
            return ast.Constant(True)
        out = unique[0] if len(unique) == 1 else ast.BoolOp(ast.And(), unique)
        return out if len(ast.unparse(out)) <= _MAX_TEXT else None

    def note(self, path: str, guards: list[ast.expr], value: ast.expr | None = None) -> None:
        """``self.<path>`` is assigned here (``value``: a literal), under ``guards``."""
        # (before the path counts as assigned; a guard every alternative of which reads the
        # path itself, as in `if x is None: x = …`, is the last one kept: a later test of
        # the path cannot be true where it is false)
        found = _weakened(self.bound(guards), _MAX_BOUND, lambda c: self._reads_in_all(c, path))
        literal = value if isinstance(value, ast.Constant) else None
        self.bounds.setdefault(path, []).append((found, literal))
        self.values.setdefault(path, []).append(
            assigned_values.noted(self.stars, guards, value, self.env)
        )

    def _reads_in_all(self, cond: ast.expr, path: str) -> bool:
        alternatives = (
            cond.values if isinstance(cond, ast.BoolOp) and isinstance(cond.op, ast.Or) else [cond]
        )
        return all(path in self.reads(a) for a in alternatives)

    def bound(self, guards: list[ast.expr]) -> ast.expr | None:
        """An expression over the launch's values that holds whenever ``guards`` held where
        they were tested."""
        parts: list[ast.expr] = []
        for guard in guards:
            noted = self.stars.get(id(guard))
            found = noted[1] if noted is not None and noted[0] is guard else self._over(guard)
            if found is not None:
                parts.append(found)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts)

    def _over(self, guard: ast.expr) -> ast.expr | None:
        parts = [b for c in conjuncts(guard) if (b := self._conjunct(c)) is not None]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts)

    def _conjunct(self, cond: ast.expr) -> ast.expr | None:
        if not self.evaluable(cond):
            return None
        reads = self.reads(cond)
        if self.unsure(reads):
            return None
        changed = self._changed_paths(reads)
        if not changed:
            return cond
        alternatives = [cond]
        for path in changed:
            notes = self.bounds.get(path) or [(None, None)]
            for bound, value in notes:
                if value is not None and reads == {path} and _false_with(cond, path, value):
                    continue  # this assignment's value makes the conjunct false
                weak = _weakened(bound, _MAX_ALTERNATIVE)
                if weak is None:
                    return None
                alternatives.append(weak)
        out = _or(alternatives)
        return out if len(ast.unparse(out)) <= _MAX_INNER else None

    def unchanged(self, reads: set[str]) -> ast.expr | None:
        """An expression over the launch's values that holds only when none of ``reads`` was
        changed (``True`` when nothing was assigned); None when no such expression is known
        (or it is longer than ``_MAX_TEXT`` characters)."""
        terms: list[ast.expr] = []
        for path in self._changed_paths(reads):
            notes = self.bounds.get(path)
            if not notes or any(b is None for b, _ in notes):
                return None
            terms += [negated(b) for b, _ in notes if b is not None]
        unique = list({ast.unparse(t): t for t in terms}.values())
        if not unique:
            return ast.Constant(True)
        out = unique[0] if len(unique) == 1 else ast.BoolOp(ast.And(), unique)
        return out if len(ast.unparse(out)) <= _MAX_TEXT else None

    def _changed_paths(self, reads: set[str]) -> list[str]:
        return [
            path
            for path in sorted(self.bounds.keys() | self.mutated)
            if any(r == path or r.startswith(path + ".") for r in reads)
        ]


def _weakened(
    bound: ast.expr | None, limit: int, later: Callable[[ast.expr], bool] = lambda c: False
) -> ast.expr | None:
    """``bound`` with only the conjuncts that fit in ``limit`` characters, kept in order (a
    conjunction with fewer conjuncts holds more often: still an over-approximation): the
    shortest first, those ``later`` holds for after the others."""
    if bound is None or len(ast.unparse(bound)) <= limit:
        return bound
    parts = conjuncts(bound)
    sizes = sorted((later(p), len(ast.unparse(p)) + 5, i) for i, p in enumerate(parts))
    chosen: set[int] = set()
    used = 0
    for _later, size, i in sizes:  # the most conjuncts that fit
        if used + size <= limit:
            chosen.add(i)
            used += size
    kept = [p for i, p in enumerate(parts) if i in chosen]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else ast.BoolOp(ast.And(), kept)


def _false_with(cond: ast.expr, path: str, value: ast.Constant) -> bool:
    """``cond`` (reading only ``self.<path>``) is certainly false once that is ``value``."""
    text = ast.unparse(_Literal("self." + path, value).visit(copy.deepcopy(cond)))
    return runtime.outcome(text, runtime.Values("", {})) == "passes"


class _Literal(ast.NodeTransformer):
    def __init__(self, chain: str, value: ast.Constant):
        self.chain, self.value = chain, value

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if ast.unparse(node) == self.chain:
            return copy.deepcopy(self.value)
        return self.generic_visit(node)


def _or(parts: list[ast.expr]) -> ast.expr:
    unique = list({ast.unparse(p): p for p in parts}.values())
    return unique[0] if len(unique) == 1 else ast.BoolOp(ast.Or(), unique)


def negated(test: ast.expr) -> ast.expr:
    """``not test``, written simply where that is the same (``not not x`` -> ``x``, ``not a
    is None`` -> ``a is not None``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _FLIP:
        return ast.Compare(test.left, [_FLIP[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def walrus_targets(test: ast.expr) -> list[tuple[str, ast.expr | None]]:
    """The names a test's assignment expressions bind, in evaluation order, each with the
    value it certainly gets (``(x := E) is None`` binds x to E) or None where the walrus may
    not run (past a short-circuit, in a conditional branch or a comprehension)."""
    always = _always_evaluated(test)
    return [
        (node.target.id, node.value if id(node) in always else None)
        for node in ast.walk(test)
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)
    ]


def _always_evaluated(test: ast.expr) -> set[int]:
    """ids of the sub-expressions evaluated whenever ``test`` is: the operands of a
    comparison, ``not``, arithmetic, and the first operand of ``and``/``or``."""
    out: set[int] = set()
    todo = [test]
    while todo:
        node = todo.pop()
        out.add(id(node))
        if isinstance(node, ast.NamedExpr):
            todo.append(node.value)
        elif isinstance(node, ast.Compare):
            todo.append(node.left)  # the comparators after a false link are skipped
            todo += node.comparators[:1]
        elif isinstance(node, ast.UnaryOp):
            todo.append(node.operand)
        elif isinstance(node, ast.BinOp):
            todo += [node.left, node.right]
        elif isinstance(node, ast.BoolOp):
            todo.append(node.values[0])
    return out


class Unwalrus(ast.NodeTransformer):
    """A test with each ``(x := E)`` replaced by ``E``: as a guard it tests the value."""

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.AST:
        return self.visit(node.value)
