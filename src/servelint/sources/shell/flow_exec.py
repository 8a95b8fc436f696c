"""Control flow of the static bash interpreter: blocks, lists, pipelines, ``if``, ``case``,
loops, tests and redirections (a mixin of :class:`~.interpreter.Interpreter`)."""

from __future__ import annotations

import re

from servelint.sources.shell.parts import (
    glob_regex,
)

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.sources.shell.flows import (
    common_prefix,
    flow_keys,
    fork,
    join_flows,
    recall,
    remember,
    short,
    unknown_var,
    write_file,
)
from servelint.sources.shell.syntax import (
    assigned_names,
    case_item_parts,
    if_clauses,
)
from servelint.sources.shell.values import (
    Piece,
    Pieces,
    Source,
    State,
    Var,
    is_symbolic,
    text_of,
)
from servelint.sources.shell.words import (
    compare,
)


class FlowMixin:
    """Statements that route flows: the caller is an ``Interpreter``."""

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
        keys = flow_keys(states)
        for s, k in zip(states, keys, strict=True):
            groups.setdefault(k, []).append(s)
        merged: list[State] = []
        for members in groups.values():
            keep = members[0]
            if len(members) > 1:
                keep.labels = common_prefix([m.labels for m in members])
                keep.facts = {
                    k: v
                    for k, v in keep.facts.items()
                    if all(m.facts.get(k) == v for m in members[1:])
                }
            merged.append(keep)
        if len(merged) > self.cap:
            merged = [join_flows(merged, self.cap > 1)]
        return merged

    # ----------------------------------------------------------------- control
    def exec_list(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        ops = [c.type for c in node.children if c.type in ("&&", "||")]
        if len(named) != 2 or len(ops) != 1:
            return self.exec_seq(named, src, st)
        left, right = named
        op = ops[0]
        out: list[tuple[State, bool | None]] = []
        label = f"L{src.line(left)} {short(src.text(left))}"
        left_text = src.text(left)
        with self._condition():
            left_results = self.exec_status(left, src, st)
        for s, v in left_results:
            if s.flow:
                out.append((s, v))
                continue
            if v is None:
                v = recall(s, left_text)
            run_right = (v is True) if op == "&&" else (v is False)
            skip = (v is False) if op == "&&" else (v is True)
            if run_right:
                out.extend(self.exec_status(right, src, s))
            elif skip:
                out.append((s, v))
            else:
                other = fork(s)
                other.labels += (f"{label}: {'false' if op == '&&' else 'true'}",)
                s.labels += (f"{label}: {'true' if op == '&&' else 'false'}",)
                remember(other, left_text, op == "||")
                remember(s, left_text, op == "&&")
                out.append((other, op == "||"))
                out.extend(self.exec_status(right, src, s))
        return self._bound_status(out)

    def _bound_status(
        self, pairs: list[tuple[State, bool | None]]
    ) -> list[tuple[State, bool | None]]:
        if len(pairs) <= 1:
            return pairs
        seen: dict[tuple, int] = {}
        out: list[tuple[State, bool | None]] = []
        keys = flow_keys([s for s, _ in pairs])
        for (s, v), sk in zip(pairs, keys, strict=True):
            k = (sk, v)
            if k in seen:
                prev = out[seen[k]][0]
                prev.labels = common_prefix([prev.labels, s.labels])
                prev.facts = {fk: fv for fk, fv in prev.facts.items() if s.facts.get(fk) == fv}
                continue
            seen[k] = len(out)
            out.append((s, v))
        if len(out) > self.cap:
            return [(join_flows([s for s, _ in out], self.cap > 1), None)]
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
            clauses = src.memo[key] = if_clauses(node)
        for cond, body, row in clauses:  # type: ignore[attr-defined]
            line = row + src.line_offset
            nxt: list[State] = []
            for s in pending:
                if cond is None:
                    results.extend(self.exec_block(body, src, [s]))
                    continue
                cond_text = " ".join(src.text(c) for c in cond)
                label = f"L{line} {short(cond_text)}"
                with self._condition():
                    cond_results = self.exec_seq(cond, src, s)
                for s2, v in cond_results:
                    if v is None:
                        v = recall(s2, cond_text)
                    if s2.flow:
                        results.append(s2)
                    elif v is True:
                        results.extend(self.exec_block(body, src, [s2]))
                    elif v is False:
                        nxt.append(s2)
                    else:
                        taken = fork(s2)
                        taken.labels += (f"{label}: true",)
                        s2.labels += (f"{label}: false",)
                        remember(taken, cond_text, True)
                        remember(s2, cond_text, False)
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
            items = src.memo[key] = [
                case_item_parts(c) for c in node.named_children if c.type == "case_item"
            ]
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
            branch = fork(st)
            branch.labels += (
                f"L{line} case {short(src.text(value_node))} in "
                f"{short('|'.join(src.text(p) for p in patterns))}",
            )
            results.extend(self.exec_block(body, src, [branch]))
            if any(p == "*" for p in pats):
                break
        if known and not results:
            return [(st, True)]
        if not has_default:
            st.labels += (f"L{line} case {short(src.text(value_node))}: no match",)
            results.append(st)
        return [(s, True) for s in self._bound(results)]

    def exec_loop(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        body = node.child_by_field_name("body")
        body_nodes = body.named_children if body is not None else []
        if node.type == "for_statement":
            var_node = node.child_by_field_name("variable")
            values = [
                c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "value"
            ]
            name = src.text(var_node) if var_node is not None else ""
            fields = self.expand_args(values, src, st) if values else list(st.positional)
            if (
                name
                and all(not f.symbolic for f in fields)
                and len(fields) <= 64
                and (values or st.frames)
            ):
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
            cond = [
                c
                for i, c in enumerate(node.children)
                if node.field_name_for_child(i) == "condition"
            ]
            if cond:
                self.exec_seq(cond, src, st)
        states = self.exec_block(body_nodes, src, [st])
        names = assigned_names(body, src) if body is not None else set()
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
            if (
                op in ("-f", "-e", "-s", "-r")
                and not is_symbolic(pieces)
                and text_of(pieces) in st.files
            ):
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
            return compare(
                op,
                a,
                b,
                double and right is not None and right.type not in ("string", "raw_string"),
            )
        pieces = self.expand_string(node, src, st)
        if is_symbolic(pieces):
            return None
        return text_of(pieces) != ""

    # ---------------------------------------------------------- redirections
    def exec_redirected(self, node, src: Source, st: State) -> list[tuple[State, bool | None]]:
        body = node.child_by_field_name("body")
        redirects = [
            c
            for c in node.children
            if c.type in ("file_redirect", "heredoc_redirect", "herestring_redirect")
        ]
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
                if (
                    op in (">", ">>", ">|")
                    and dest is not None
                    and not any(c.type == "file_descriptor" for c in r.children)
                ):
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
                fields = self.expand_args(
                    [
                        c
                        for i, c in enumerate(body.children)
                        if body.field_name_for_child(i) == "argument"
                    ],
                    src,
                    st,
                )
                if words[0] == "echo" and fields and fields[0].text.startswith("-"):
                    fields = fields[1:]
                if words[0] == "echo" and fields:
                    content = tuple(
                        p
                        for i, f in enumerate(fields)
                        for p in ((Piece(" "),) if i else ()) + f.pieces
                    )
            if content is not None:
                for path, append in outs:
                    write_file(st, path, content, append)
        if body is None:
            return [(st, None)]
        return self.exec_status(body, src, st)

