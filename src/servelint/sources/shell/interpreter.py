"""Statement interpreter of the static bash reader (never runs anything).

Each ``State`` is one flow through the script. A condition the reader cannot decide
forks the flow (one per branch, labelled with the condition); flows that become
identical again are merged, and past ``max_states`` flows are joined (values that
differ become symbolic). Loops over known short word lists are unrolled; other loops
run their body once and then make every variable the body assigns symbolic.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.model import LaunchSpec, Span
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell.command_exec import CommandMixin
from servelint.sources.shell.expand import Expander
from servelint.sources.shell.flow_exec import FlowMixin
from servelint.sources.shell.flows import (
    unknown_var,
)
from servelint.sources.shell.nested_exec import NestedMixin
from servelint.sources.shell.statement_exec import StatementMixin
from servelint.sources.shell.syntax import (
    assigned_names,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Source,
    State,
    Var,
)
from servelint.util import budget


class Budget(Exception):
    """Raised when the step or time bound is hit."""


class Interpreter(FlowMixin, StatementMixin, CommandMixin, NestedMixin, Expander):
    origin_kind = "script"  # the file kind its launches come from (LaunchSpec.origin)

    def __init__(
        self,
        main_path: str,
        root: str,
        env: dict[str, str | None] | None,
        *,
        max_states: int = 32,
        max_steps: int = 400_000,
        time_limit: float = 10.0,
        max_sources: int = 12,
    ) -> None:
        self.main_path = main_path
        self.root = os.path.abspath(root)
        self.env = env or {}
        self.env_complete = env is not None
        self.max_states = max_states
        self.cap = max_states  # current bound; 1 inside helper-library functions
        self.max_steps = max_steps
        self.deadline = time.monotonic() + time_limit
        self.max_sources = max_sources
        self.steps = 0
        self.depth = 0
        self.sources_read = 0
        self.launches: list[LaunchSpec] = []
        self.problems: list[ReadProblem] = []
        self._reported: set[str] = set()
        self.in_cond = 0  # > 0 while evaluating a condition (helper statuses matter then)
        self.first_read: dict[str, int] = {}  # variable -> step it was first read at
        self.last_launch_step = -1
        self.end_states: list[State] = []  # the flows at the end of the script
        self._last_table: tuple[dict, frozenset] | None = None

    # ------------------------------------------------------------------ basics
    def lookup(self, name: str, src: Source, st: State) -> tuple[str, Var | None]:
        self.first_read.setdefault(name, self.steps)
        return super().lookup(name, src, st)

    def inputs(self) -> set[str]:
        """Variables read before the last launch (the launches can depend on no others)."""
        return {n for n, step in self.first_read.items() if step <= self.last_launch_step}

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps or (
            self.steps % 1024 == 0 and time.monotonic() > self.deadline
        ):
            raise Budget()

    def problem(self, span: Span | None, message: str, kind: str, subject: str = "") -> None:
        key = f"{kind}:{message}"
        if key not in self._reported:
            self._reported.add(key)
            self.problems.append(
                ReadProblem(span.path if span else self.main_path, span, message, kind, subject)
            )

    def initial_state(self) -> State:
        st = State()
        for name, value in self.env.items():
            if value is None:  # set by the caller's environment, value unknown
                st.vars[name] = Var(scalar=(Piece(f"${name}", True),), exported=True, external=True)
            else:
                st.vars[name] = Var(scalar=(Piece(str(value)),), exported=True, external=True)
        return st

    @contextmanager
    def _condition(self) -> Iterator[None]:
        """While a condition is evaluated (helper statuses matter then)."""
        self.in_cond += 1
        try:
            yield
        finally:
            self.in_cond -= 1

    def run(self, src: Source) -> None:
        self.script_assigned = frozenset(assigned_names(src.tree.root_node, src))
        try:
            self.end_states = self.exec_block(
                src.tree.root_node.named_children, src, [self.initial_state()]
            )
        except Budget:
            self.problem(
                None,
                f"analysis stopped after {self.steps} steps (time/size bound); "
                "launches found so far are reported",
                "budget",
            )
        except RecursionError:
            self.problem(None, "script nesting too deep to analyse", "budget")

    # ------------------------------------------------------------- assignments
    def assign(
        self, node, src: Source, st: State, *, local: bool = False, export: bool = False
    ) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        append = any(c.type == "+=" for c in node.children)
        span = src.span(node)
        if name_node.type == "subscript":
            base = name_node.child_by_field_name("name")
            if base is not None:
                name = src.text(base)
                old = st.vars.get(name)
                st.vars[name] = Var(
                    scalar=(Piece(f"${{{name}[@]}}", True),),
                    exported=bool(old and old.exported),
                    span=span,
                    unknown_array=True,
                )
            return
        name = src.text(name_node)
        if local and st.frames and name not in st.frames[-1]:
            st.frames[-1][name] = st.vars.get(name)
        old = st.vars.get(name)
        if append:  # X+=… reads X's value
            self.first_read.setdefault(name, self.steps)
        exported = (
            export or bool(old and old.exported and not old.external) or bool(old and old.external)
        )
        if value_node is None:
            new = Var(scalar=(), exported=exported, span=span)
        elif value_node.type == "array":
            elements: list[Field] = []
            for c in value_node.named_children:
                if c.type == "comment":
                    continue
                elements.extend(self.expand_fields(c, src, st))
            if append and old is not None:
                if old.unknown_array:
                    st.vars[name] = Var(old.scalar, old.array, exported, span, unknown_array=True)
                    return
                elements = list(old.elements) + elements
            new = Var(array=tuple(elements), exported=exported, span=span)
        else:
            pieces = self.expand_string(value_node, src, st)
            if append and old is not None:
                if old.array is not None:
                    els = list(old.array) or [Field((), span)]
                    els[0] = Field(els[0].pieces + pieces, els[0].span)
                    new = Var(array=tuple(els), exported=exported, span=span)
                    st.vars[name] = self.bounded(name, new, span)
                    return
                pieces = old.scalar_value() + pieces
            new = Var(scalar=pieces, exported=exported, span=span)
        st.vars[name] = self.bounded(name, new, span)

    def bounded(self, name: str, var: Var, span: Span) -> Var:
        """``var``, or a symbolic stand-in when it is over the size budget (with a note)."""
        if var.array is not None:
            over = len(var.array) > budget.MAX_ARRAY_ITEMS or budget.over_value(
                sum(len(p.text) for f in var.array for p in f.pieces),
                sum(len(f.pieces) for f in var.array),
            )
        else:
            pieces = var.scalar or ()
            over = budget.over_value(sum(len(p.text) for p in pieces), len(pieces))
        if not over:
            return var
        self.problem(span, budget.value_note(name, span.line), "budget")
        return Var(
            scalar=(Piece(f"${name}", True, span),),
            exported=var.exported,
            span=var.span,
            unknown_array=var.array is not None,
        )

    def declare(self, node, src: Source, st: State) -> None:
        keyword = node.children[0].type if node.children else ""
        flags = ""
        local = keyword == "local" or (keyword in ("declare", "typeset") and bool(st.frames))
        export = keyword == "export"
        for c in node.named_children:
            if c.type == "word" and src.text(c).startswith(("-", "+")):
                flags += src.text(c)
        if "x" in flags and not flags.startswith("+"):
            export = True
        if keyword == "export" and "-n" in flags:
            export = False
        for c in node.named_children:
            if c.type == "variable_assignment":
                if "A" in flags:
                    name_node = c.child_by_field_name("name")
                    if name_node is not None:
                        st.vars[src.text(name_node)] = unknown_var(src.text(name_node))
                    continue
                self.assign(c, src, st, local=local, export=export)
            elif c.type == "variable_name":
                name = src.text(c)
                if local and st.frames and name not in st.frames[-1]:
                    st.frames[-1][name] = st.vars.get(name)
                    st.vars[name] = Var(scalar=(), span=src.span(c))
                elif export:
                    old = st.vars.get(name)
                    if old is not None:
                        st.vars[name] = Var(
                            old.scalar,
                            old.array,
                            True,
                            old.span if not old.external else src.span(c),
                            old.external,
                            old.unknown_array,
                        )
                    elif not self.env_complete:
                        st.vars[name] = Var(
                            scalar=(Piece(f"${name}", True),),
                            exported=True,
                            span=src.span(c),
                            external=True,
                        )
