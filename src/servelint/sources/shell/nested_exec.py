"""Other code a script runs: ``source``d files, child shells (``bash script``, ``bash -c``),
``eval`` strings and command substitutions (a mixin of :class:`~.interpreter.Interpreter`)."""

from __future__ import annotations

import os

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

import servelint.sources.shell.eval_holes as eval_holes
from servelint.model import EnvVar
from servelint.sources.shell.flows import (
    fork,
)
from servelint.sources.shell.syntax import (
    FixedSpanSource,
    ParseTimeout,
    is_library,
    load_source,
    parse_tree,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Pieces,
    Source,
    State,
    Var,
)
from servelint.sources.shell.words import (
    relevant_text,
)


class NestedMixin:
    """Scripts and strings run from the script: the caller is an ``Interpreter``."""

    def capture_output(self, stmts, src: Source, st: State) -> Pieces | None:
        """Run a small ``$( … )`` body that only tests, computes and echoes."""
        text = " ".join(src.text(s) for s in stmts)
        if len(text) > 4000 or self.depth >= 8 or relevant_text().search(text):
            return None
        probe = fork(st)
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
        candidates = (
            [text]
            if os.path.isabs(text)
            else [
                os.path.join(os.path.dirname(src.path), text),
                os.path.join(os.path.dirname(self.main_path), text),
            ]
        )
        for c in candidates:
            c = os.path.normpath(c)
            inside = os.path.commonpath([self.root, os.path.abspath(c)]) == self.root
            if inside and os.path.isfile(c):
                return c
        return None

    def source(
        self, args: list[Field], src: Source, st: State, node
    ) -> list[tuple[State, bool | None]]:
        if not args or args[0].symbolic:
            self.problem(
                src.span(node),
                "sourced file name is not fixed by the script; its "
                "functions are treated as unknown commands",
                "unresolved",
                "source",
            )
            return [(st, None)]
        path = self.resolve_path(args[0].text, src)
        if path is None:
            self.problem(
                src.span(node),
                f"sourced file {args[0].text!r} not found inside "
                f"{self.root}; its functions are treated as unknown commands",
                "unresolved",
                "source",
            )
            return [(st, None)]
        if self.sources_read >= self.max_sources or self.depth >= 8:
            self.problem(src.span(node), f"source limit reached at {path!r}", "budget")
            return [(st, None)]
        child = _load_or_none(path)
        if child is None:
            self.problem(
                src.span(node),
                f"sourced file {path!r} unreadable or too large",
                "read-error",
                "source",
            )
            return [(st, None)]
        self.sources_read += 1
        self.depth += 1
        saved = st.positional
        # helper files decide nothing (see ``call``); a sourced script that runs commands
        # at its top level (a dispatcher's ``source server_<engine>.sh``) is a script body
        saved_cap = self.cap
        self.cap = 1 if is_library(child) else self.cap
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

    def run_child(self, args: list[Field], env: list[EnvVar], src: Source, st: State, node) -> None:
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
        child_src = _load_or_none(path) if path else None
        if child_src is None or self.depth >= 8 or self.sources_read >= self.max_sources:
            return
        self.sources_read += 1
        child = State(
            vars={k: v for k, v in st.vars.items() if v.exported},
            labels=st.labels,
            installs=st.installs,
            files=dict(st.files),
        )
        for e in env:
            child.vars[e.name] = Var(
                scalar=(Piece(e.value, e.symbolic, e.span),), exported=True, span=e.span
            )
        child.positional = tuple(args[1:])
        self.depth += 1
        try:
            self.exec_block(child_src.tree.root_node.named_children, child_src, [child])
        finally:
            self.depth -= 1

    def eval_string(
        self, args: list[Field], src: Source, st: State, node, *, subshell: bool
    ) -> list[tuple[State, bool | None]]:
        if not args or self.depth >= 8:
            return [(st, None)]
        plain, holes = eval_holes.text_with_holes(args)
        text = plain.encode()
        if len(text) > 200_000:
            return [(st, None)]
        span = src.span(node)
        key = ("eval", text, span)
        child = src.memo.get(key)
        if child is None:  # parsed once per source it is written in (a loop runs it again)
            try:
                tree = parse_tree(text, src.path)
            except ParseTimeout as exc:
                self.problem(span, f"eval text: {exc}", "budget")
                return [(st, None)]
            child = src.memo[key] = FixedSpanSource(src.path, text, tree, span)
        self.depth += 1
        first = len(self.launches)
        try:
            target = fork(st) if subshell or holes else st
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


def _load_or_none(path: str):
    """A sourced or run file's parsed source; None when it cannot be read (or parsed in time)."""
    try:
        return load_source(path)
    except ParseTimeout:
        return None
