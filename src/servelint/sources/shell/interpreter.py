"""Statement interpreter of the static bash reader (never runs anything).

Each ``State`` is one flow through the script. A condition the reader cannot decide
forks the flow (one per branch, labelled with the condition); flows that become
identical again are merged, and past ``max_states`` flows are joined (values that
differ become symbolic). Loops over known short word lists are unrolled; other loops
run their body once and then make every variable the body assigns symbolic.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from itertools import compress
from operator import is_not
from stat import S_ISREG

import tree_sitter_bash
from tree_sitter import Language, Parser, Query

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint import budget
from servelint.engines import registry
from servelint.model import EnvVar, LaunchSpec, Span
from servelint.sources.common.deps import note
from servelint.sources.common.pip import parse_pip_command
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell import eval_holes
from servelint.sources.shell.expand import Expander, _first_named, glob_regex
from servelint.sources.shell.launch import (
    config_flags,
    config_value,
    match_launch,
    strip_wrappers,
    vllm_config_tokens,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Pieces,
    Source,
    State,
    Var,
    VFile,
    is_symbolic,
    text_of,
)

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)
_CACHE: dict[tuple[str, int, int], Source] = {}
_EVAL_SOURCES: dict[tuple[str, bytes, Span], Source] = {}  # eval / bash -c strings
MAX_FILE_BYTES = 2_000_000


class Budget(Exception):
    """Raised when the step or time bound is hit."""


def parse_source(path: str, data: bytes, line_offset: int = 0) -> Source:
    return Source(path, data, _PARSER.parse(data), line_offset)


def load_source(path: str) -> Source | None:
    note(path)
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
        return None
    key = (path, int(stat.st_mtime_ns), stat.st_size)
    if key not in _CACHE:
        if stat.st_size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as fh:
            _CACHE[key] = parse_source(path, fh.read())
    return _CACHE[key]


class _FixedSpanSource(Source):
    """Source of an ``eval``/``bash -c`` string: every span is the command's span."""

    def __init__(self, path: str, data: bytes, tree: object, span: Span) -> None:
        super().__init__(path, data, tree)
        self._fixed = span

    def span(self, node) -> Span:  # noqa: ARG002
        return self._fixed

    def span_bytes(self, start: int, end: int) -> Span:  # noqa: ARG002
        return self._fixed


def unknown_var(name: str, exported: bool = False) -> Var:
    return Var(scalar=(Piece(f"${name}", True),), exported=exported, unknown_array=True)


class Interpreter(Expander):
    def __init__(self, main_path: str, root: str, env: dict[str, str | None] | None, *,
                 max_states: int = 32, max_steps: int = 400_000, time_limit: float = 10.0,
                 max_sources: int = 12) -> None:
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
        self._last_table: tuple[dict, int] | None = None

    # ------------------------------------------------------------------ basics
    def lookup(self, name: str, src: Source, st: State) -> tuple[str, Var | None]:
        self.first_read.setdefault(name, self.steps)
        return super().lookup(name, src, st)

    def inputs(self) -> set[str]:
        """Variables read before the last launch (the launches can depend on no others)."""
        return {n for n, step in self.first_read.items() if step <= self.last_launch_step}

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps or (self.steps % 1024 == 0
                                           and time.monotonic() > self.deadline):
            raise Budget()

    def problem(self, span: Span | None, message: str, kind: str, subject: str = "") -> None:
        key = f"{kind}:{message}"
        if key not in self._reported:
            self._reported.add(key)
            self.problems.append(ReadProblem(span.path if span else self.main_path, span,
                                             message, kind, subject))

    def initial_state(self) -> State:
        st = State()
        for name, value in self.env.items():
            if value is None:  # set by the caller's environment, value unknown
                st.vars[name] = Var(scalar=(Piece(f"${name}", True),), exported=True,
                                    external=True)
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
        self.script_assigned = frozenset(_assigned_names(src.tree.root_node, src))
        try:
            self.end_states = self.exec_block(src.tree.root_node.named_children, src,
                                              [self.initial_state()])
        except Budget:
            self.problem(None, f"analysis stopped after {self.steps} steps (time/size bound); "
                         "launches found so far are reported", "budget")
        except RecursionError:
            self.problem(None, "script nesting too deep to analyse", "budget")

    # ----------------------------------------------------------------- blocks
    def exec_block(self, nodes, src: Source, states: list[State]) -> list[State]:
        for node in nodes:
            if node.type == "comment" or not node.is_named:
                continue
            new: list[State] = []
            for st in states:
                if st.flow:
                    new.append(st)
                    continue
                new.extend(s for s, _ in self.exec_status(node, src, st))
            states = self._bound([s for s in new if s.flow != "exit"])
            if not states:
                break
        return states

    def exec_seq(self, nodes, src: Source, st: State) -> list[tuple[State, bool | None]]:
        """Run statements; the status is the last one's."""
        nodes = [n for n in nodes if n.is_named and n.type != "comment"]
        if not nodes:
            return [(st, True)]
        states = self.exec_block(nodes[:-1], src, [st])
        out: list[tuple[State, bool | None]] = []
        for s in states:
            if s.flow:
                out.append((s, None))
            else:
                out.extend(self.exec_status(nodes[-1], src, s))
        return out

    def _bound(self, states: list[State]) -> list[State]:
        if len(states) <= 1:
            return states
        groups: dict[tuple, list[State]] = {}
        keys = _keys(states)
        for s, k in zip(states, keys, strict=True):
            groups.setdefault(k, []).append(s)
        merged: list[State] = []
        for members in groups.values():
            keep = members[0]
            if len(members) > 1:
                keep.labels = _common_prefix([m.labels for m in members])
                keep.facts = {k: v for k, v in keep.facts.items()
                              if all(m.facts.get(k) == v for m in members[1:])}
            merged.append(keep)
        if len(merged) > self.cap:
            merged = [_join(merged, self.cap > 1)]
        return merged

    # ------------------------------------------------------------- statements
    def exec_status(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        self.tick()
        t = node.type
        if t == "command":
            return self.exec_command(node, src, st, [])
        if t == "variable_assignment":
            self.assign(node, src, st)
            return [(st, True)]
        if t == "variable_assignments":
            for c in node.named_children:
                if c.type == "variable_assignment":
                    self.assign(c, src, st)
            return [(st, True)]
        if t == "declaration_command":
            self.declare(node, src, st)
            return [(st, True)]
        if t == "unset_command":
            for c in node.named_children:
                for f in self.expand_fields(c, src, st):
                    if not f.symbolic and not f.text.startswith("-"):
                        st.vars.pop(f.text, None)
            return [(st, True)]
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                # replaced, never changed in place: copied flows share one table
                st.funcs = {**st.funcs, src.text(name): (body, src)}
            return [(st, True)]
        if t == "redirected_statement":
            return self.exec_redirected(node, src, st)
        if t == "list":
            return self.exec_list(node, src, st)
        if t == "pipeline":
            return self.exec_pipeline(node, src, st)
        if t == "negated_command":
            inner = node.named_children[-1] if node.named_children else None
            if inner is None:
                return [(st, None)]
            return [(s, None if v is None else not v) for s, v in self.exec_status(inner, src, st)]
        if t == "if_statement":
            return self.exec_if(node, src, st)
        if t == "case_statement":
            return self.exec_case(node, src, st)
        if t in ("for_statement", "c_style_for_statement", "while_statement"):
            return self.exec_loop(node, src, st)
        if t == "compound_statement":
            arith = [c for c in node.children if c.type == "(("]
            if arith:
                value = self.arith_node(next((c for c in node.named_children), None), src, st)
                return [(st, None if value is None else value != 0)]
            return self.exec_seq(node.named_children, src, st)
        if t == "subshell":
            for _s in self.exec_block(node.named_children, src, [_fork(st)]):
                pass
            return [(st, None)]
        if t == "test_command":
            return [(st, self.eval_test(node, src, st))]
        if t in ("comment", "heredoc_body"):
            return [(st, True)]
        self.problem(src.span(node), f"bash construct {t!r} not analysed", "unsupported")
        return [(st, None)]

    # ------------------------------------------------------------- assignments
    def assign(self, node, src: Source, st: State, *, local: bool = False,
               export: bool = False) -> None:
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
                st.vars[name] = Var(scalar=(Piece(f"${{{name}[@]}}", True),),
                                    exported=bool(old and old.exported), span=span,
                                    unknown_array=True)
            return
        name = src.text(name_node)
        if local and st.frames and name not in st.frames[-1]:
            st.frames[-1][name] = st.vars.get(name)
        old = st.vars.get(name)
        if append:  # X+=… reads X's value
            self.first_read.setdefault(name, self.steps)
        exported = export or bool(old and old.exported and not old.external) or bool(
            old and old.external)
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
                    st.vars[name] = Var(old.scalar, old.array, exported, span,
                                        unknown_array=True)
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
                sum(len(f.pieces) for f in var.array))
        else:
            pieces = var.scalar or ()
            over = budget.over_value(sum(len(p.text) for p in pieces), len(pieces))
        if not over:
            return var
        self.problem(span, budget.value_note(name, span.line), "budget")
        return Var(scalar=(Piece(f"${name}", True, span),), exported=var.exported,
                   span=var.span, unknown_array=var.array is not None)

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
                        st.vars[name] = Var(old.scalar, old.array, True,
                                            old.span if not old.external else src.span(c),
                                            old.external, old.unknown_array)
                    elif not self.env_complete:
                        st.vars[name] = Var(scalar=(Piece(f"${name}", True),), exported=True,
                                            span=src.span(c), external=True)

    # ----------------------------------------------------------------- control
    def exec_list(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        ops = [c.type for c in node.children if c.type in ("&&", "||")]
        if len(named) != 2 or len(ops) != 1:
            return self.exec_seq(named, src, st)
        left, right = named
        op = ops[0]
        out: list[tuple[State, bool | None]] = []
        label = f"L{src.line(left)} {_short(src.text(left))}"
        left_text = src.text(left)
        with self._condition():
            left_results = self.exec_status(left, src, st)
        for s, v in left_results:
            if s.flow:
                out.append((s, v))
                continue
            if v is None:
                v = _recall(s, left_text)
            run_right = (v is True) if op == "&&" else (v is False)
            skip = (v is False) if op == "&&" else (v is True)
            if run_right:
                out.extend(self.exec_status(right, src, s))
            elif skip:
                out.append((s, v))
            else:
                other = _fork(s)
                other.labels += (f"{label}: {'false' if op == '&&' else 'true'}",)
                s.labels += (f"{label}: {'true' if op == '&&' else 'false'}",)
                _remember(other, left_text, op == "||")
                _remember(s, left_text, op == "&&")
                out.append((other, op == "||"))
                out.extend(self.exec_status(right, src, s))
        return self._bound_status(out)

    def _bound_status(self, pairs: list[tuple[State, bool | None]]) -> list[
            tuple[State, bool | None]]:
        if len(pairs) <= 1:
            return pairs
        seen: dict[tuple, int] = {}
        out: list[tuple[State, bool | None]] = []
        keys = _keys([s for s, _ in pairs])
        for (s, v), sk in zip(pairs, keys, strict=True):
            k = (sk, v)
            if k in seen:
                prev = out[seen[k]][0]
                prev.labels = _common_prefix([prev.labels, s.labels])
                prev.facts = {fk: fv for fk, fv in prev.facts.items() if s.facts.get(fk) == fv}
                continue
            seen[k] = len(out)
            out.append((s, v))
        if len(out) > self.cap:
            return [(_join([s for s, _ in out], self.cap > 1), None)]
        return out

    def exec_pipeline(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        cmds = [c for c in node.named_children if c.type != "comment"]
        pairs: list[tuple[State, bool | None]] = [(st, True)]
        for c in cmds:
            nxt: list[tuple[State, bool | None]] = []
            for s, _ in pairs:
                nxt.extend(self.exec_status(c, src, s))
            pairs = self._bound_status(nxt)
        return pairs

    def exec_if(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        results: list[State] = []
        pending = [st]
        key = ("if_clauses", node.start_byte, node.end_byte, node.type)
        clauses = src.memo.get(key)
        if clauses is None:  # the same nodes on every read of this source
            clauses = src.memo[key] = _if_clauses(node)
        for cond, body, row in clauses:  # type: ignore[attr-defined]
            line = row + src.line_offset
            nxt: list[State] = []
            for s in pending:
                if cond is None:
                    results.extend(self.exec_block(body, src, [s]))
                    continue
                cond_text = " ".join(src.text(c) for c in cond)
                label = f"L{line} {_short(cond_text)}"
                with self._condition():
                    cond_results = self.exec_seq(cond, src, s)
                for s2, v in cond_results:
                    if v is None:
                        v = _recall(s2, cond_text)
                    if s2.flow:
                        results.append(s2)
                    elif v is True:
                        results.extend(self.exec_block(body, src, [s2]))
                    elif v is False:
                        nxt.append(s2)
                    else:
                        taken = _fork(s2)
                        taken.labels += (f"{label}: true",)
                        s2.labels += (f"{label}: false",)
                        _remember(taken, cond_text, True)
                        _remember(s2, cond_text, False)
                        results.extend(self.exec_block(body, src, [taken]))
                        nxt.append(s2)
            pending = nxt
        results.extend(pending)
        return [(s, True) for s in self._bound(results)]

    def exec_case(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        value_node = node.child_by_field_name("value")
        word = self.expand_string(value_node, src, st) if value_node is not None else ()
        known = not is_symbolic(word)
        text = text_of(word)
        key = ("case_items", node.start_byte, node.end_byte, node.type)
        items = src.memo.get(key)
        if items is None:  # the same nodes on every read of this source
            items = src.memo[key] = [_case_item_parts(c) for c in node.named_children
                                     if c.type == "case_item"]
        results: list[State] = []
        has_default = False
        line = src.line(node)
        for patterns, body in items:  # type: ignore[attr-defined]
            pats: list[str | None] = []
            for p in patterns:
                pieces = self.expand_string(p, src, st)
                pats.append(None if is_symbolic(pieces) else text_of(pieces))
            if any(p == "*" for p in pats):
                has_default = True
            if known and all(p is not None for p in pats):
                if any(re.fullmatch(glob_regex(p), text, re.S) for p in pats if p is not None):
                    return [(s, True) for s in self.exec_block(body, src, [st])]
                continue
            branch = _fork(st)
            branch.labels += (f"L{line} case {_short(src.text(value_node))} in "
                              f"{_short('|'.join(src.text(p) for p in patterns))}",)
            results.extend(self.exec_block(body, src, [branch]))
            if any(p == "*" for p in pats):
                break
        if known and not results:
            return [(st, True)]
        if not has_default:
            st.labels += (f"L{line} case {_short(src.text(value_node))}: no match",)
            results.append(st)
        return [(s, True) for s in self._bound(results)]

    def exec_loop(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        body = node.child_by_field_name("body")
        body_nodes = body.named_children if body is not None else []
        if node.type == "for_statement":
            var_node = node.child_by_field_name("variable")
            values = [c for i, c in enumerate(node.children)
                      if node.field_name_for_child(i) == "value"]
            name = src.text(var_node) if var_node is not None else ""
            fields = self.expand_args(values, src, st) if values else list(st.positional)
            if name and all(not f.symbolic for f in fields) and len(fields) <= 64 and (
                    values or st.frames):
                states = [st]
                done: list[State] = []
                for f in fields:
                    for s in states:
                        s.vars[name] = Var(scalar=f.pieces, span=f.span)
                    states = self.exec_block(body_nodes, src, states)
                    still: list[State] = []
                    for s in states:
                        if s.flow == "break":
                            s.flow = ""
                            done.append(s)
                        else:
                            if s.flow == "continue":
                                s.flow = ""
                            still.append(s)
                    states = still
                    if not states:
                        break
                return [(s, True) for s in self._bound(states + done)]
            if name:
                st.vars[name] = unknown_var(name)
        elif node.type == "while_statement":
            cond = [c for i, c in enumerate(node.children)
                    if node.field_name_for_child(i) == "condition"]
            if cond:
                self.exec_seq(cond, src, st)
        states = self.exec_block(body_nodes, src, [st])
        names = _assigned_names(body, src) if body is not None else set()
        for s in states:
            if s.flow in ("break", "continue"):
                s.flow = ""
            for n in names:
                old = s.vars.get(n)
                s.vars[n] = unknown_var(n, bool(old and old.exported))
        return [(s, True) for s in self._bound(states)]

    # ------------------------------------------------------------------ tests
    def eval_test(self, node, src: Source, st: State) -> bool | None:
        inner = [c for c in node.named_children]
        if not inner:
            return None
        double = node.children[0].type == "[["
        return self._test_expr(inner[0], src, st, double)

    def _test_expr(self, node, src: Source, st: State, double: bool) -> bool | None:
        self.tick()
        t = node.type
        if t == "parenthesized_expression":
            inner = next((c for c in node.named_children), None)
            return self._test_expr(inner, src, st, double) if inner is not None else None
        if t == "unary_expression":
            op_node = node.child_by_field_name("operator") or node.children[0]
            op = src.text(op_node)
            operand = next((c for c in node.named_children if c.id != op_node.id), None)
            if op == "!":
                v = self._test_expr(operand, src, st, double) if operand is not None else None
                return None if v is None else not v
            pieces = self.expand_string(operand, src, st) if operand is not None else ()
            if op in ("-n", "-z"):
                if is_symbolic(pieces):
                    return None
                return (text_of(pieces) != "") == (op == "-n")
            if op in ("-f", "-e", "-s", "-r") and not is_symbolic(pieces) and \
                    text_of(pieces) in st.files:
                return True
            return None
        if t == "binary_expression":
            op_node = node.child_by_field_name("operator")
            op = src.text(op_node) if op_node is not None else ""
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if op in ("&&", "-a", "||", "-o"):
                a = self._test_expr(left, src, st, double)
                if op in ("&&", "-a") and a is False:
                    return False
                if op in ("||", "-o") and a is True:
                    return True
                b = self._test_expr(right, src, st, double)
                if op in ("&&", "-a"):
                    return False if b is False else (True if a and b else None)
                return True if b is True else (False if a is False and b is False else None)
            lp = self.expand_string(left, src, st) if left is not None else ()
            rp = self.expand_string(right, src, st) if right is not None else ()
            if is_symbolic(lp) or is_symbolic(rp):
                return None
            a, b = text_of(lp), text_of(rp)
            return _compare(op, a, b, double and right is not None and right.type not in (
                "string", "raw_string"))
        pieces = self.expand_string(node, src, st)
        if is_symbolic(pieces):
            return None
        return text_of(pieces) != ""

    # ---------------------------------------------------------- redirections
    def exec_redirected(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c.type in ("file_redirect", "heredoc_redirect",
                                                             "herestring_redirect")]
        heredoc = next((c for c in redirects if c.type == "heredoc_redirect"), None)
        if heredoc is not None:  # `cat << EOF >> file`: the file redirect nests in the heredoc
            redirects += [c for c in heredoc.children if c.type == "file_redirect"]
        if body is not None and body.type == "command":
            words = self._words(body, src, st)
            outs: list[tuple[str, bool]] = []
            for r in redirects:
                if r.type != "file_redirect":
                    continue
                op = next((c.type for c in r.children if not c.is_named), "")
                dest = r.child_by_field_name("destination")
                if op in (">", ">>", ">|") and dest is not None and not any(
                        c.type == "file_descriptor" for c in r.children):
                    pieces = self.expand_string(dest, src, st)
                    if not is_symbolic(pieces):
                        outs.append((text_of(pieces), op == ">>"))
            content: Pieces | None = None
            if heredoc is not None and words and words[0] in ("cat", "tee"):
                content = self.heredoc_pieces(heredoc, src, st)
                if words[0] == "tee":
                    append = "-a" in words
                    outs += [(w, append) for w in words[1:] if w and not w.startswith("-")]
            elif words and words[0] in ("echo", "printf") and outs and len(words) > 1:
                fields = self.expand_args([c for i, c in enumerate(body.children)
                                           if body.field_name_for_child(i) == "argument"],
                                          src, st)
                if words[0] == "echo" and fields and fields[0].text.startswith("-"):
                    fields = fields[1:]
                if words[0] == "echo" and fields:
                    content = tuple(p for i, f in enumerate(fields)
                                    for p in ((Piece(" "),) if i else ()) + f.pieces)
            if content is not None:
                for path, append in outs:
                    _write_file(st, path, content, append)
        if body is None:
            return [(st, None)]
        return self.exec_status(body, src, st)

    # ----------------------------------------------------------------- commands
    def exec_command(self, node, src: Source, st: State, extra_env: list[EnvVar]) -> list[
            tuple[State, bool | None]]:
        prefix: list[EnvVar] = []
        arg_nodes = []
        for i, c in enumerate(node.children):
            fname = node.field_name_for_child(i)
            if c.type == "variable_assignment" and fname != "argument":
                name_node = c.child_by_field_name("name")
                value_node = c.child_by_field_name("value")
                pieces = self.expand_string(value_node, src, st) if value_node is not None else ()
                if name_node is not None:
                    prefix.append(EnvVar(src.text(name_node), text_of(pieces), src.span(c),
                                         is_symbolic(pieces)))
            elif fname in ("name", "argument"):
                arg_nodes.append(_first_named_or_self(c) if c.type == "command_name" else c)
        if arg_nodes and arg_nodes[0].type == "word" and src.text(arg_nodes[0]) in (
                "echo", "printf") and not (len(arg_nodes) > 1 and src.text(arg_nodes[1]) == "-v"):
            if st.capturing and st.capture is not None:
                fields = self.expand_args(arg_nodes, src, st)
                out = _echo_output([f.text for f in fields]) if not any(
                    f.symbolic for f in fields) else None
                if out is None:
                    st.capture = None
                else:
                    st.capture.append(out)
            return [(st, True)]  # output only: its arguments change nothing
        fields = self.expand_args(arg_nodes, src, st)
        if not fields:
            return [(st, True)]
        return self.run_fields(fields, prefix + extra_env, src, st, node)

    def run_fields(self, fields: list[Field], prefix: list[EnvVar], src: Source, st: State,
                   node) -> list[tuple[State, bool | None]]:
        head = fields[0]
        cmd = head.text if not head.symbolic else ""
        args = fields[1:]
        if cmd in st.funcs:
            return self.call(cmd, args, st, src, node)
        if cmd in (".", "source"):
            return self.source(args, src, st, node)
        if cmd == "exit":
            st.flow = "exit"
            return [(st, None)]
        if cmd == "return":
            st.flow = "return" if st.frames else "exit"
            st.ret = None
            if not args:
                st.ret = True
            elif not args[0].symbolic and args[0].text.isdigit():
                st.ret = int(args[0].text) == 0
            return [(st, st.ret)]
        if cmd in ("break", "continue"):
            st.flow = cmd
            return [(st, None)]
        if cmd in ("true", ":"):
            return [(st, True)]
        if cmd == "false":
            return [(st, False)]
        if cmd == "shift":
            n = int(args[0].text) if args and args[0].text.isdigit() else 1
            st.positional = st.positional[n:]
            return [(st, True)]
        if cmd == "set":
            if args and args[0].text == "--":
                st.positional = tuple(args[1:])
            return [(st, True)]
        if cmd in ("read", "mapfile", "readarray"):
            for f in args:
                if not f.symbolic and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f.text):
                    st.vars[f.text] = unknown_var(f.text)
            return [(st, None)]
        if cmd == "printf" and len(args) > 1 and args[0].text == "-v":
            st.vars[args[1].text] = unknown_var(args[1].text)
            return [(st, True)]
        if cmd in ("echo", "printf", "cd", "pushd", "popd", "local", "let", "wait", "sleep"):
            return [(st, True)]
        if cmd == "eval":
            return self.eval_string(args, src, st, node, subshell=False)
        if cmd in ("[", "test"):
            return [(st, _simple_test([f.text for f in args if f.text != "]"])
                     if not any(f.symbolic for f in args) else None)]
        if st.capturing and cmd == "seq":
            out = _seq_output([f.text for f in args]) if not any(f.symbolic for f in args) \
                else None
            if out is None or st.capture is None:
                st.capture = None
            else:
                st.capture.append(out)
            return [(st, True)]
        if st.capturing:
            st.capture = None  # any other command prints what we cannot know
        self.on_command(fields, prefix, src, st, node)
        return [(st, None)]

    def on_command(self, fields: list[Field], prefix: list[EnvVar], src: Source, st: State,
                   node) -> None:
        tokens = [f.token() for f in fields]
        match = match_launch(tokens)
        if match is not None:
            self.record_launch(match, prefix, src, st, node)
            return
        rest, wrapper_env, _ = strip_wrappers(tokens)
        pip = parse_pip_command(rest)
        if pip is not None:
            st.installs = st.installs + tuple(pip.installs)
            return
        if rest and not rest[0].symbolic and os.path.basename(rest[0].text) in ("bash", "sh"):
            start = len(tokens) - len(rest)
            self.run_child(fields[start + 1:], prefix + wrapper_env, src, st, node)

    def record_launch(self, match, prefix: list[EnvVar], src: Source, st: State, node) -> None:
        env = [EnvVar(n, text_of(v.scalar_value()), v.span, is_symbolic(v.scalar_value()))
               for n, v in sorted(st.vars.items()) if v.exported and not v.external]
        names = {e.name for e in prefix + match.env}
        env = [e for e in env if e.name not in names] + prefix + match.env
        argv = list(match.argv)
        context: dict[str, str] = {}
        option_file = None
        hit = config_value(argv, config_flags(match.engine))
        if hit is not None:
            idx, value = hit
            context["config_file"] = value.text
            vf = st.files.get(value.text) if not value.symbolic else None
            if vf is None and not value.symbolic:
                vf = st.files.get(os.path.basename(value.text))
            if vf is not None and not vf.unknown:
                context["config_text"] = "\n".join(line for line, _, _ in vf.lines)
                option_file = vf.lines
                if match.engine == "vllm":
                    extra = vllm_config_tokens(vf.lines)
                    if extra is None:
                        self.problem(value.span, f"config file {value.text!r} written by the "
                                     "script is not a flat YAML mapping", "unsupported")
                    else:
                        argv[idx + 1:idx + 1] = extra
        spec = LaunchSpec(
            engine=match.engine, entrypoint=match.entrypoint, argv=argv, path=self.main_path,
            anchor=match.anchor.span or src.span(node), env=env, installs=list(st.installs),
            rendering="; ".join(st.labels), origin="script", context=context)
        engine = registry.find(match.engine)
        if engine is not None and engine.option_file_checks:
            spec.option_file = option_file  # the engine judges the file's lines itself
        package = engine.package if engine else None
        for inst in st.installs:
            if inst.name == package and not inst.symbolic and inst.specifier.startswith("==") \
                    and "," not in inst.specifier and "*" not in inst.specifier:
                spec.release, spec.release_span = inst.specifier[2:], inst.span
        self.launches.append(spec)
        self.last_launch_step = self.steps

    # ------------------------------------------------------------ calls/files
    def call(self, name: str, args: list[Field], st: State, src: Source, node) -> list[
            tuple[State, bool | None]]:
        if self.depth >= 16:
            self.problem(src.span(node), f"call depth limit reached at {name!r}", "budget")
            return [(st, None)]
        body, fsrc = st.funcs[name]
        if fsrc.path != self.main_path and not self.in_cond and not self._may_launch(
                body, fsrc, st):
            # a helper that can start no engine nor install anything: only its global
            # assignments matter, and they become unknown
            for var_name in _global_assignments(body, fsrc):
                old = st.vars.get(var_name)
                st.vars[var_name] = unknown_var(var_name, bool(old and old.exported))
            return [(st, None)]
        saved = st.positional
        st.positional = tuple(args)
        st.frames = st.frames + ({},)
        self.depth += 1
        saved_cap = self.cap
        if fsrc.path != self.main_path:
            # helper-library functions: decide nothing, join their branches at once
            self.cap = 1
        try:
            if body.type == "subshell":
                inner = _fork(st)
                self.exec_block(body.named_children, fsrc, [inner])
                results: list[tuple[State, bool | None]] = [(st, None)]
            else:
                results = self.exec_seq(body.named_children, fsrc, st)
        finally:
            self.depth -= 1
            self.cap = saved_cap
        out: list[tuple[State, bool | None]] = []
        for s, status in results:
            if s.flow == "exit":
                continue
            frame = s.frames[-1] if s.frames else {}
            for var_name, old in frame.items():
                if old is None:
                    s.vars.pop(var_name, None)
                else:
                    s.vars[var_name] = old
            s.frames = s.frames[:-1]
            s.positional = saved
            if s.flow == "return":
                s.flow = ""
                status = s.ret
            out.append((s, status))
        return self._bound_status(out)

    def _may_launch(self, body, src: Source, st: State) -> bool:
        """Whether a helper function can (transitively) launch an engine or install."""
        return self._reaches(body, src, st, [], self._table_id(st.funcs))[0]

    def _table_id(self, funcs: dict) -> int:
        """A number naming the content of a function table (tables are replaced, never
        changed, so the last one asked about is recognised by identity)."""
        last = self._last_table
        if last is not None and last[0] is funcs:
            return last[1]
        content = tuple(sorted((name, fsrc.path, body.start_byte, body.end_byte)
                               for name, (body, fsrc) in funcs.items()))
        number = _TABLES.setdefault(content, len(_TABLES))
        self._last_table = (funcs, number)
        return number

    def _reaches(self, body, src: Source, st: State, stack: list,
                 table: int) -> tuple[bool, bool]:
        """-> (may launch, answer rests on a caller still being decided). Such a "no" is
        not cached: a recursive helper must not get a different answer depending on which
        function of its cycle was asked first (set order varies between processes). Answers
        are per function table: a script may define the callees a helper names."""
        key = (src.path, body.start_byte, table)
        cached = _RELEVANT.get(key)
        if cached is not None:
            return cached, False
        if key in stack:
            return False, True
        text = src.text(body)
        if _relevant_text().search(text) is not None:
            _RELEVANT[key] = True
            return True, False
        stack.append(key)
        open_cycle = False
        try:
            for callee in sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))):
                fn = st.funcs.get(callee)
                if fn is None:
                    continue
                cbody, csrc = fn
                found, pending = self._reaches(cbody, csrc, st, stack, table)
                if found:
                    _RELEVANT[key] = True
                    return True, False
                open_cycle = open_cycle or pending
        finally:
            stack.pop()
        if not open_cycle or not stack:
            _RELEVANT[key] = False
        return False, open_cycle and bool(stack)

    def capture_output(self, stmts, src: Source, st: State) -> Pieces | None:
        """Run a small ``$( … )`` body that only tests, computes and echoes."""
        text = " ".join(src.text(s) for s in stmts)
        if len(text) > 4000 or self.depth >= 8 or _relevant_text().search(text):
            return None
        probe = _fork(st)
        probe.capture, probe.capturing = [], True
        probe.labels = ()
        self.depth += 1
        saved_cap, self.cap = self.cap, 4
        try:
            results = self.exec_block(stmts, src, [probe])
        finally:
            self.depth -= 1
            self.cap = saved_cap
        outs = {tuple(s.capture) if s.capture is not None else None for s in results}
        if len(outs) != 1 or None in outs:
            return None
        return (Piece("".join(outs.pop()).rstrip("\n")),)

    def resolve_path(self, text: str, src: Source) -> str | None:
        candidates = [text] if os.path.isabs(text) else [
            os.path.join(os.path.dirname(src.path), text),
            os.path.join(os.path.dirname(self.main_path), text)]
        for c in candidates:
            c = os.path.normpath(c)
            inside = os.path.commonpath([self.root, os.path.abspath(c)]) == self.root
            if inside and os.path.isfile(c):
                return c
        return None

    def source(self, args: list[Field], src: Source, st: State, node) -> list[
            tuple[State, bool | None]]:
        if not args or args[0].symbolic:
            self.problem(src.span(node), "sourced file name is not fixed by the script; its "
                         "functions are treated as unknown commands", "unresolved", "source")
            return [(st, None)]
        path = self.resolve_path(args[0].text, src)
        if path is None:
            self.problem(src.span(node), f"sourced file {args[0].text!r} not found inside "
                         f"{self.root}; its functions are treated as unknown commands",
                         "unresolved", "source")
            return [(st, None)]
        if self.sources_read >= self.max_sources or self.depth >= 8:
            self.problem(src.span(node), f"source limit reached at {path!r}", "budget")
            return [(st, None)]
        child = load_source(path)
        if child is None:
            self.problem(src.span(node), f"sourced file {path!r} unreadable or too large",
                         "read-error", "source")
            return [(st, None)]
        self.sources_read += 1
        self.depth += 1
        saved = st.positional
        # helper files decide nothing (see ``call``); a sourced script that runs commands
        # at its top level (a dispatcher's ``source server_<engine>.sh``) is a script body
        saved_cap = self.cap
        self.cap = 1 if _is_library(child) else self.cap
        if len(args) > 1:
            st.positional = tuple(args[1:])
        try:
            states = self.exec_block(child.tree.root_node.named_children, child, [st])
        finally:
            self.depth -= 1
            self.cap = saved_cap
        for s in states:
            s.positional = saved
            if s.flow == "return":
                s.flow = ""
        return [(s, True) for s in states]

    def run_child(self, args: list[Field], env: list[EnvVar], src: Source, st: State,
                  node) -> None:
        """``bash script.sh args`` / ``bash -c STRING``: a child shell sees exported vars."""
        if not args or args[0].symbolic:
            return
        if args[0].text == "-c":
            if len(args) > 1:
                self.eval_string(args[1:2], src, st, node, subshell=True)
            return
        if args[0].text.startswith("-"):
            return
        path = self.resolve_path(args[0].text, src)
        child_src = load_source(path) if path else None
        if child_src is None or self.depth >= 8 or self.sources_read >= self.max_sources:
            return
        self.sources_read += 1
        child = State(vars={k: v for k, v in st.vars.items() if v.exported},
                      labels=st.labels, installs=st.installs, files=dict(st.files))
        for e in env:
            child.vars[e.name] = Var(scalar=(Piece(e.value, e.symbolic, e.span),),
                                     exported=True, span=e.span)
        child.positional = tuple(args[1:])
        self.depth += 1
        try:
            self.exec_block(child_src.tree.root_node.named_children, child_src, [child])
        finally:
            self.depth -= 1

    def eval_string(self, args: list[Field], src: Source, st: State, node, *,
                    subshell: bool) -> list[tuple[State, bool | None]]:
        if not args or self.depth >= 8:
            return [(st, None)]
        plain, holes = eval_holes.text_with_holes(args)
        text = plain.encode()
        if len(text) > 200_000:
            return [(st, None)]
        span = src.span(node)
        key = (src.path, text, span)
        child = _EVAL_SOURCES.get(key)
        if child is None:  # parsed once per process, like files (see ``load_source``)
            if len(_EVAL_SOURCES) >= 4096:
                _EVAL_SOURCES.clear()
            child = _EVAL_SOURCES[key] = _FixedSpanSource(src.path, text, _PARSER.parse(text),
                                                          span)
        self.depth += 1
        first = len(self.launches)
        try:
            target = _fork(st) if subshell or holes else st
            target.vars.update(eval_holes.hole_vars(holes))
            states = self.exec_block(child.tree.root_node.named_children, child, [target])
        finally:
            self.depth -= 1
        eval_holes.restore(self.launches[first:], holes)
        if subshell:
            return [(st, None)]
        for s in states:  # the holes are no variables of the script
            for name in eval_holes.hole_vars(holes):
                s.vars.pop(name, None)
        return [(s, None) for s in states]


# --------------------------------------------------------------------- helpers
_RELEVANT: dict[tuple[str, int, int], bool] = {}
_TABLES: dict[tuple, int] = {}  # function table content -> its number in ``_RELEVANT`` keys


def _relevant_text() -> re.Pattern[str]:
    """Text worth interpreting: an engine's words, installs, wrappers, nested shells."""
    return _relevant_pattern(registry.shell_words())


@lru_cache(maxsize=4)
def _relevant_pattern(engine_words: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in engine_words)
    return re.compile(
        rf"\b({words}|pip[0-9.]*|pipx|uv|eval|mpirun|mpiexec|srun|source)\b"
        r"|(^|[;&|]\s*|\b(exec|nohup|env|timeout)\s+)"
        r"(bash|sh)\s|^\s*\"?\$\{?[A-Za-z_][A-Za-z0-9_]*\[@\]", re.M)


def _echo_output(words: list[str]) -> str | None:
    """stdout of ``echo``/``printf`` with known words (None: a form we do not model)."""
    cmd, args = words[0], words[1:]
    if cmd == "echo":
        newline = "\n"
        while args and args[0] in ("-n", "-e", "-E"):
            if args[0] == "-n":
                newline = ""
            args = args[1:]
        return " ".join(args) + newline
    if not args:
        return None
    fmt, values = args[0], args[1:]
    if re.search(r"%[^sdi%]", fmt.replace("%%", "")):
        return None
    n = len(re.findall(r"%[sdi]", fmt.replace("%%", "")))
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t")
    out = ""
    while True:
        chunk, values = values[:n], values[n:]
        chunk += [""] * (n - len(chunk))
        pieces = re.split(r"(%[sdi%])", fmt)
        k = 0
        for piece in pieces:
            if piece == "%%":
                out += "%"
            elif piece in ("%s", "%d", "%i"):
                out += chunk[k]
                k += 1
            else:
                out += piece
        if not values or n == 0:
            return out


def _seq_output(args: list[str]) -> str | None:
    sep = "\n"
    if len(args) >= 2 and args[0] == "-s":
        sep, args = args[1], args[2:]
    elif args and args[0].startswith("-s") and len(args[0]) > 2:
        sep, args = args[0][2:], args[1:]
    try:
        nums = [int(a) for a in args]
    except ValueError:
        return None
    if len(nums) == 1:
        first, step, last = 1, 1, nums[0]
    elif len(nums) == 2:
        first, step, last = nums[0], 1, nums[1]
    elif len(nums) == 3:
        first, step, last = nums
    else:
        return None
    if step == 0 or abs(last - first) // abs(step) > 100_000:
        return None
    return sep.join(str(v) for v in range(first, last + (1 if step > 0 else -1), step)) + "\n"


def _names_memo(kind: str, node, src: Source, compute) -> frozenset[str]:
    """``compute(node, src)`` once per node of a parsed source (keyed by its byte range)."""
    key = (kind, node.start_byte, node.end_byte, node.type)
    found = src.memo.get(key)
    if found is None:
        found = src.memo[key] = frozenset(compute(node, src))
    return found  # type: ignore[return-value]


def _global_assignments(body, src: Source) -> frozenset[str]:
    return _names_memo("global_assignments", body, src, _global_assignments_of)


def _global_assignments_of(body, src: Source) -> set[str]:
    assigned = _assigned_names(body, src)
    local: set[str] = set()
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type == "declaration_command" and n.children and n.children[0].type in (
                "local", "declare", "typeset"):
            for c in n.named_children:
                if c.type == "variable_name":
                    local.add(src.text(c))
                elif c.type == "variable_assignment":
                    nm = c.child_by_field_name("name")
                    if nm is not None:
                        local.add(src.text(nm))
        stack.extend(n.children)
    return assigned - local


def _keys(states: list[State]) -> list[tuple]:
    """Content keys of flows that share most values: only differing variables are hashed."""
    first = states[0].vars
    names: set[str] = set()
    missing = _MISSING
    first_names = list(first)
    for s in states[1:]:
        sv = s.vars
        if sv is first:
            continue
        order = list(sv)
        m = min(len(order), len(first_names))
        if order[:m] == first_names[:m]:
            # names in the same order (a flow's new names come last): compare the values
            # pairwise, in C; names past the shared prefix count as differing (a superset
            # of the differing names groups flows the same way)
            names.update(compress(order, map(is_not, first.values(), sv.values())))
            names.update(order[m:])
            names.update(first_names[m:])
            continue
        absent = 0  # names of this flow that the first flow lacks
        for n, v in sv.items():
            f = first.get(n, missing)
            if f is not v:
                names.add(n)
                if f is missing:
                    absent += 1
        if len(sv) - absent != len(first):  # the first flow has names this one lacks
            names.update(n for n in first if n not in sv)
    ordered = sorted(names)
    # functions likewise: only names whose definition differs from the first flow's
    ffirst = states[0].funcs
    fnames: set[str] = set()
    for s in states[1:]:
        sf = s.funcs
        if sf is ffirst:
            continue
        absent = 0
        for k, v in sf.items():
            f = ffirst.get(k)
            if f is None:
                fnames.add(k)
                absent += 1
            elif f[0] is not v[0]:
                fnames.add(k)
        if len(sf) - absent != len(ffirst):
            fnames.update(k for k in ffirst if k not in sf)
    fordered = sorted(fnames)
    out = []
    for s in states:
        sv, sf = s.vars, s.funcs
        out.append((
            tuple([sv.get(n) for n in ordered]) if ordered else (),
            tuple([id(sf[k][0]) if k in sf else None for k in fordered]) if fordered else (),
            tuple(sorted([(k, v.lines, v.unknown) for k, v in s.files.items()]))
            if s.files else (),
            tuple([id(i) for i in s.installs]), s.positional, s.flow,
            tuple(s.capture) if s.capture is not None else None,
        ))
    return out


_MISSING = object()


_LIBRARY_NODES = frozenset(
    {"function_definition", "variable_assignment", "declaration_command", "comment"}
)
_LIBRARY: dict[tuple[str, int], bool] = {}


def _is_library(src: Source) -> bool:
    """A file of definitions only: functions, assignments, ``export``/``declare``."""
    key = (src.path, len(src.data))
    found = _LIBRARY.get(key)
    if found is None:
        if len(_LIBRARY) >= 4096:
            _LIBRARY.clear()
        found = _LIBRARY[key] = all(
            n.type in _LIBRARY_NODES for n in src.tree.root_node.named_children
        )
    return found


def _fork(st: State) -> State:
    """A copy of a flow that shares its function table (which is replaced, not changed)."""
    new = st.copy()
    new.funcs = st.funcs
    return new


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _common_prefix(label_lists: list[tuple[str, ...]]) -> tuple[str, ...]:
    if not label_lists:
        return ()
    first = label_lists[0]
    n = 0
    while n < len(first) and all(len(lab) > n and lab[n] == first[n] for lab in label_lists):
        n += 1
    return first[:n]


_VAR_REF = re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)")


def _remember(st: State, cond: str, truth: bool) -> None:
    names = sorted(set(_VAR_REF.findall(cond)))
    if names:
        st.facts[cond] = (truth, tuple((n, st.vars.get(n)) for n in names))


def _recall(st: State, cond: str) -> bool | None:
    """A condition decided earlier in this flow, if none of its variables changed since."""
    fact = st.facts.get(cond)
    if fact is None:
        return None
    truth, snapshot = fact
    if all(st.vars.get(n) is v for n, v in snapshot):
        return truth
    return None


def _join(states: list[State], label: bool = True) -> State:
    """Join flows into one: values that differ become symbolic."""
    base = _fork(states[0])
    first = states[0].vars
    names: set[str] = set()
    for s in states[1:]:
        names.update(n for n, v in s.vars.items() if first.get(n) is not v)
        names.update(n for n in first if n not in s.vars)
    for n in names:
        vals = [s.vars.get(n) for s in states]
        if all(v == vals[0] for v in vals):
            continue
        exported = any(v is not None and v.exported for v in vals)
        base.vars[n] = unknown_var(n, exported)
    for path in set().union(*(s.files.keys() for s in states)):
        vals = [s.files.get(path) for s in states]
        if not all(v == vals[0] for v in vals):
            base.files[path] = VFile(unknown=True)
    seen = []
    for s in states:
        for inst in s.installs:
            if not any(inst is x for x in seen):
                seen.append(inst)
    base.installs = tuple(seen)
    base.labels = _common_prefix([s.labels for s in states]) + (
        (f"{len(states)} flows joined",) if label else ())
    base.facts = {}
    if any(s.ret != base.ret for s in states):
        base.ret = None
    return base


def _if_clauses(node):
    """-> [(condition nodes | None, body nodes, line)] for if/elif/else."""
    clauses = []
    cond, body, seen_then = [], [], False
    for i, c in enumerate(node.children):
        fname = node.field_name_for_child(i)
        if c.type == "then":
            seen_then = True
            continue
        if c.type in ("elif_clause", "else_clause"):
            continue
        if fname == "condition" and not seen_then:
            if c.is_named:
                cond.append(c)
        elif seen_then and c.is_named and c.type != "comment":
            body.append(c)
    clauses.append((cond, body, node.start_point[0] + 1))
    for c in node.named_children:
        if c.type == "elif_clause":
            ec, eb, seen = [], [], False
            for _j, x in enumerate(c.children):
                if x.type == "then":
                    seen = True
                    continue
                if not x.is_named or x.type == "comment":
                    continue
                (eb if seen else ec).append(x)
            clauses.append((ec, eb, c.start_point[0] + 1))
        elif c.type == "else_clause":
            clauses.append((None, [x for x in c.named_children if x.type != "comment"],
                            c.start_point[0] + 1))
    return clauses


def _case_item_parts(item):
    patterns, body = [], []
    for i, c in enumerate(item.children):
        if item.field_name_for_child(i) == "value":
            patterns.append(c)
        elif c.is_named and c.type != "comment" and item.field_name_for_child(i) != \
                "termination":
            body.append(c)
    return patterns, body


def _assigned_names(node, src: Source) -> frozenset[str]:
    return _names_memo("assigned_names", node, src, _assigned_names_of)


_ASSIGNED = Query(_LANGUAGE, "(variable_assignment name: [(variable_name) @n "
                              "(subscript name: (variable_name) @n)])")


def _assigned_names_of(node, src: Source) -> set[str]:
    """Names assigned anywhere under ``node``, matched in tree-sitter (a walk in Python over
    a 2 MB script's 1.7M nodes took 8 s)."""
    if QueryCursor is not None:
        found = QueryCursor(_ASSIGNED).captures(node)
    else:  # tree-sitter 0.23/0.24
        found = _ASSIGNED.captures(node)
    nodes = found.get("n", []) if isinstance(found, dict) else [n for n, _ in found]
    return {src.text(n) for n in nodes}


def _compare(op: str, a: str, b: str, pattern: bool) -> bool | None:
    if op in ("=", "=="):
        return bool(re.fullmatch(glob_regex(b), a, re.S)) if pattern else a == b
    if op == "!=":
        return not re.fullmatch(glob_regex(b), a, re.S) if pattern else a != b
    if op == "=~":
        try:
            return re.search(b, a) is not None
        except re.error:
            return None
    if op in ("<", ">"):
        return a < b if op == "<" else a > b
    ints = {"-eq": lambda x, y: x == y, "-ne": lambda x, y: x != y, "-lt": lambda x, y: x < y,
            "-le": lambda x, y: x <= y, "-gt": lambda x, y: x > y, "-ge": lambda x, y: x >= y}
    if op in ints:
        try:
            return ints[op](int(a.strip()), int(b.strip()))
        except ValueError:
            return None
    return None


def _simple_test(words: list[str]) -> bool | None:
    if len(words) == 1:
        return words[0] != ""
    if len(words) == 2 and words[0] in ("-n", "-z"):
        return (words[1] != "") == (words[0] == "-n")
    if len(words) == 2 and words[0] == "!":
        return words[1] == ""
    if len(words) == 3:
        return _compare(words[1], words[0], words[2], False)
    return None


def _first_named_or_self(node):
    return _first_named(node) or node


def _write_file(st: State, path: str, content: Pieces, append: bool) -> None:
    lines: list[tuple[str, Span | None, bool]] = []
    cur, cur_span, cur_sym = "", None, False
    for p in content:
        parts = p.text.split("\n")
        for k, chunk in enumerate(parts):
            if k:
                lines.append((cur, cur_span, cur_sym))
                cur, cur_span, cur_sym = "", None, False
            if cur_span is None and p.span is not None and not p.symbolic:
                line = p.span.line + k
                col = p.span.column - len(cur) if k == 0 else 1
                cur_span = Span(p.span.path, line, max(col, 1), line, max(col, 1) + len(cur)
                                + len(chunk))
            cur += chunk
            cur_sym = cur_sym or p.symbolic
    if cur:
        lines.append((cur, cur_span, cur_sym))
    lines = [(t, Span(s.path, s.line, s.column, s.line, s.column + len(t)) if s else None, sym)
             for t, s, sym in lines]
    old = st.files.get(path)
    if append and old is not None:
        st.files[path] = VFile(old.lines + tuple(lines), old.unknown)
    else:
        st.files[path] = VFile(tuple(lines))
