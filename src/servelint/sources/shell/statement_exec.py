"""One bash statement of the static interpreter, dispatched by its node type: assignments,
declarations, functions, negation, compound statements, subshells and tests here; lists,
pipelines, ``if``, ``case`` and loops in flow_exec.py; commands in command_exec.py (a mixin
of :class:`~.interpreter.Interpreter`)."""

from __future__ import annotations

from servelint.sources.shell.flows import fork
from servelint.sources.shell.values import Source, State


class StatementMixin:
    """Statement dispatch: the caller is an ``Interpreter``."""

    # ------------------------------------------------------------- statements
    def exec_status(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        self.tick()
        handler = _STATUS_HANDLERS.get(node.type)
        if handler is None:
            self.problem(src.span(node), f"bash construct {node.type!r} not analysed",
                         "unsupported")
            return [(st, None)]
        return getattr(self, handler)(node, src, st)

    def _st_command(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        return self.exec_command(node, src, st, [])

    def _st_assignment(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        self.assign(node, src, st)
        return [(st, True)]

    def _st_assignments(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        for c in node.named_children:
            if c.type == "variable_assignment":
                self.assign(c, src, st)
        return [(st, True)]

    def _st_declaration(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        self.declare(node, src, st)
        return [(st, True)]

    def _st_unset(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        for c in node.named_children:
            for f in self.expand_fields(c, src, st):
                if not f.symbolic and not f.text.startswith("-"):
                    st.vars.pop(f.text, None)
        return [(st, True)]

    def _st_function(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is not None and body is not None:
            # replaced, never changed in place: copied flows share one table
            st.funcs = {**st.funcs, src.text(name): (body, src)}
        return [(st, True)]

    def _st_negated(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        inner = node.named_children[-1] if node.named_children else None
        if inner is None:
            return [(st, None)]
        return [(s, None if v is None else not v) for s, v in self.exec_status(inner, src, st)]

    def _st_compound(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        if any(c.type == "((" for c in node.children):
            value = self.arith_node(next((c for c in node.named_children), None), src, st)
            return [(st, None if value is None else value != 0)]
        return self.exec_seq(node.named_children, src, st)

    def _st_subshell(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        for _s in self.exec_block(node.named_children, src, [fork(st)]):
            pass
        return [(st, None)]

    def _st_test(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        return [(st, self.eval_test(node, src, st))]

    def _st_nothing(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        return [(st, True)]


# statement node type -> the method of the interpreter that runs it
_STATUS_HANDLERS = {
    "command": "_st_command",
    "variable_assignment": "_st_assignment",
    "variable_assignments": "_st_assignments",
    "declaration_command": "_st_declaration",
    "unset_command": "_st_unset",
    "function_definition": "_st_function",
    "redirected_statement": "exec_redirected",
    "list": "exec_list",
    "pipeline": "exec_pipeline",
    "negated_command": "_st_negated",
    "if_statement": "exec_if",
    "case_statement": "exec_case",
    "for_statement": "exec_loop",
    "c_style_for_statement": "exec_loop",
    "while_statement": "exec_loop",
    "compound_statement": "_st_compound",
    "subshell": "_st_subshell",
    "test_command": "_st_test",
    "comment": "_st_nothing",
    "heredoc_body": "_st_nothing",
}
