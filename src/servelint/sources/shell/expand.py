"""Word, parameter, arithmetic and test expansion for the static bash reader.

Rules (documented in ``bash.py``): a variable the script never assigned is
*unknown* (its expansion stays symbolic) unless the caller passed ``env``; then the
caller's ``env`` is the script's whole input environment, so an unassigned variable
absent from it is unset and ``${VAR:-default}`` takes its default. A plain ``$VAR``
that is unset stays symbolic even then (launchers add variables we cannot see), unless
the script itself assigns VAR somewhere: then it is empty on a flow that did not.
"""

from __future__ import annotations

import codecs
import fnmatch
import functools
import os
import re
from dataclasses import dataclass
from typing import Any

from servelint import budget
from servelint.model import Span
from servelint.sources.shell.values import (
    Field,
    Piece,
    Pieces,
    Source,
    State,
    Var,
    is_symbolic,
    sub_span,
    text_of,
)

# a part of an expansion in progress: (piece, field-span hint) or a field break
_BRK = None
_QUOTED = (Piece(""), "Q")  # marks quoted (possibly empty) content in a word
_WORD_NODES = ("word", "number", "extglob_pattern", "regex", "test_operator")
# nodes whose parts never depend on the flow (a "string" only when all its children are text)
_STATIC_NODES = frozenset((*_WORD_NODES, "raw_string", "ansi_c_string", "string_content", "string"))
_UNSEEN = object()
OVER_BUDGET = "\0over budget"  # _string_op: the work or the result is over the size budget


@functools.lru_cache(maxsize=4096)
def glob_regex(pattern: str) -> str:
    return fnmatch.translate(pattern).removeprefix("(?s:").removesuffix(")\\Z")


class Expander:
    """Mixin: needs ``self.main_path``, ``self.env_complete``, ``self.steps``."""

    main_path: str
    env_complete: bool
    script_assigned: frozenset[str] = frozenset()

    def tick(self) -> None:  # overridden by the interpreter (budget)
        pass

    def over_budget(self, node, src: Source) -> Piece:
        """The word as written, symbolic: its expansion is over the size budget (the
        interpreter notes it)."""
        span = src.span(node)
        problem = getattr(self, "problem", None)
        if problem is not None:
            problem(
                span,
                budget.value_note(f"the word {_short_text(src.text(node))!r}", span.line),
                "budget",
            )
        return Piece(src.text(node), True, span)

    # ----------------------------------------------------------------- lookup
    def lookup(self, name: str, src: Source, st: State) -> tuple[str, Var | None]:
        """-> ("set", var) | ("unset", None) | ("unknown", None)."""
        if name == "0":
            return "set", Var(scalar=(Piece(self.main_path),))
        if name == "BASH_SOURCE":
            return "set", Var(scalar=(Piece(src.path),))
        if name.isdigit():
            idx = int(name) - 1
            if idx < len(st.positional):
                f = st.positional[idx]
                return "set", Var(scalar=f.pieces, span=f.span)
            return ("unset", None) if st.frames else ("unknown", None)
        if name == "#":
            if st.frames:
                return "set", Var(scalar=(Piece(str(len(st.positional))),))
            return "unknown", None
        var = st.vars.get(name)
        if var is not None:
            return "set", var
        if self.env_complete and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return "unset", None
        return "unknown", None

    # ------------------------------------------------------------- fields
    def expand_fields(self, node, src: Source, st: State) -> list[Field]:
        """One argument node -> the fields (argv words) it produces (over the size budget:
        one symbolic field, the word as written)."""
        parts = self.parts(node, src, st, quoted=False)
        if _over_budget(parts):
            return [Field((self.over_budget(node, src),), src.span(node))]
        fields = assemble(parts, src.span(node))
        if len(fields) > budget.MAX_ARRAY_ITEMS:
            return [Field((self.over_budget(node, src),), src.span(node))]
        return fields

    def expand_args(self, nodes, src: Source, st: State) -> list[Field]:
        out: list[Field] = []
        for n in nodes:
            out.extend(self.expand_fields(n, src, st))
        return out

    def expand_string(self, node, src: Source, st: State) -> Pieces:
        """A node in a no-split context (assignment value, case word, test operand)."""
        parts = self.parts(node, src, st, quoted=True)
        if _over_budget(parts):
            return (self.over_budget(node, src),)
        return tuple(
            p[0]
            for p in parts
            if p is not _BRK and p[1] != "Q" and (p[0].text != "" or p[0].symbolic)
        )

    # -------------------------------------------------------------- parts
    def parts(self, node, src: Source, st: State, quoted: bool) -> list:
        self.tick()
        if node.type not in _STATIC_NODES:
            return self._parts(node, src, st, quoted)
        # no expansion inside: the same parts on every read of src (None: a dynamic string).
        # Keyed by byte range and type: node ids of small leaves are not unique.
        key = ("parts", node.start_byte, node.end_byte, node.type, quoted)
        found = src.memo.get(key, _UNSEEN)
        if found is _UNSEEN:
            static = node.type != "string" or all(
                c.type == "string_content" for c in node.named_children
            )
            found = src.memo[key] = tuple(self._parts(node, src, st, quoted)) if static else None
        if found is None:
            return self._parts(node, src, st, quoted)
        return list(found)  # type: ignore[arg-type]

    def _parts(self, node, src: Source, st: State, quoted: bool) -> list:
        t = node.type
        if t in _WORD_NODES:
            text = src.text(node)
            if not quoted and t == "word":
                text = _unescape_unquoted(text)
            return [(Piece(text, False, src.span(node)), None)]
        if t == "string" or t == "translated_string":
            inner = self._range(
                node,
                src,
                st,
                node.start_byte + (2 if t == "translated_string" else 1),
                node.end_byte - 1,
                quoted=True,
                in_dquote=True,
            )
            if not inner and "[@]" in src.text(node):
                return []  # "${EMPTY[@]}" yields no word at all
            return [_QUOTED, *inner]  # "" is still a word
        if t == "raw_string":
            text = src.text(node)[1:-1]
            inner = Span(src.path, *_inner(src.span(node)))
            return [(Piece(text, False, inner), None)]
        if t == "ansi_c_string":
            raw = src.text(node)[2:-1]
            try:
                text = codecs.decode(raw, "unicode_escape")
            except (UnicodeDecodeError, ValueError):
                text = raw
            return [(Piece(text, False, src.span(node)), None)]
        if t == "concatenation":
            out = []
            for c in node.children:
                out += self.parts(c, src, st, quoted)
            return out
        if t in ("simple_expansion", "expansion"):
            return self.param(node, src, st, quoted)
        if t == "arithmetic_expansion":
            val = self.arith_node(_first_named(node), src, st)
            if val is None:
                return [(Piece(src.text(node), True, src.span(node)), None)]
            return [(Piece(str(val), False, src.span(node)), None)]
        if t == "command_substitution" and _looks_arithmetic(src.text(node)):
            # ``${X:-$(( N * 2 ))}``: tree-sitter-bash reads the arithmetic inside a
            # parameter expansion as a subshell; it is computed (or symbolic), never empty
            val = self._arith_text(src.text(node), st)
            if val is None:
                return [(Piece(src.text(node), True, src.span(node)), None)]
            return [(Piece(str(val), False, src.span(node)), None)]
        if t == "command_substitution":
            pieces = self.cmdsub(node, src, st)
            if pieces is None:
                return [(Piece(src.text(node), True, src.span(node)), None)]
            return [(Piece(p.text, p.symbolic, p.span, not quoted), None) for p in pieces]
        if t == "string_content":
            return [(Piece(_unescape_dquote(src.text(node)), False, src.span(node)), None)]
        # process substitution, brace expression, anything else: keep the spelling, symbolic
        return [(Piece(src.text(node), True, src.span(node)), None)]

    def _range(
        self,
        node,
        src: Source,
        st: State,
        start: int,
        end: int,
        quoted: bool,
        in_dquote: bool = False,
    ) -> list:
        """Expand the bytes [start, end) of ``node``: literal gaps + named children."""
        out: list = []
        pos = start
        for c in node.children:
            if c.start_byte < start or c.end_byte > end or not c.is_named:
                continue
            if c.start_byte > pos:
                raw = src.data[pos : c.start_byte].decode("utf-8", "replace")
                lit = _unescape_dquote(raw) if in_dquote else raw
                out.append((Piece(lit, False, src.span_bytes(pos, c.start_byte)), None))
            if c.type == "string_content" or c.type == "heredoc_content":
                raw = src.text(c)
                lit = _unescape_dquote(raw) if in_dquote else raw
                out.append((Piece(lit, False, src.span(c)), None))
            else:
                out += self.parts(c, src, st, quoted)
            pos = c.end_byte
        if pos < end:
            raw = src.data[pos:end].decode("utf-8", "replace")
            lit = _unescape_dquote(raw) if in_dquote else raw
            out.append((Piece(lit, False, src.span_bytes(pos, end)), None))
        return out

    # ----------------------------------------------------------- parameters
    def param(self, node, src: Source, st: State, quoted: bool) -> list:
        spelled = src.text(node)
        span = src.span(node)
        sym = [(Piece(spelled, True, span), None)]
        key = ("param_shape", node.start_byte, node.end_byte, node.type)
        shape = src.memo.get(key)
        if shape is None:  # a pure function of the node: once per parsed source
            shape = src.memo[key] = _param_shape(node, src)
        name, index, prefix, op, operand_start = shape  # type: ignore[misc]
        if name is None:
            return sym
        if prefix == "!":
            name = self._indirect_name(name, src, st)
            if name is None:
                return sym
        status, var = self._param_var(name, src, st)
        whole_array = index in ("@", "*") or (name in ("@", "*"))
        if prefix == "#":
            parts = _param_length(status, var, whole_array, span)
            return sym if parts is None else parts
        ref = _ParamRef(node, spelled, span, quoted, name, status)
        if not self._select(ref, var, index, whole_array, src, st):
            return sym
        if op is None:
            parts = self._plain_param(ref, index)
        else:
            parts = self._param_op(ref, op, operand_start, src, st)
        return sym if parts is None else parts

    def _indirect_name(self, name: str, src: Source, st: State) -> str | None:
        """The variable ``${!name}`` names, or None when it is not known."""
        status, var = self.lookup(name, src, st)
        if status != "set" or var is None or is_symbolic(var.scalar_value()):
            return None
        target = text_of(var.scalar_value())
        return target if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+", target) else None

    def _param_var(self, name: str, src: Source, st: State) -> tuple[str, Var | None]:
        """(status, variable) of ``name``; ``@`` / ``*`` are the positional parameters."""
        found = self.lookup(name, src, st)  # also for @ / *: the interpreter notes the read
        if name in ("@", "*"):
            var = Var(array=st.positional) if (st.frames or st.positional) else None
            return ("set" if var is not None else "unknown"), var
        return found

    def _select(
        self,
        ref: _ParamRef,
        var: Var | None,
        index: str | None,
        whole_array: bool,
        src: Source,
        st: State,
    ) -> bool:
        """Put the selected element(s) of ``var`` into ``ref``; False when unknown."""
        if ref.status != "set" or var is None:
            return True
        if whole_array:
            if var.unknown_array:
                return False
            ref.elements = var.elements
        elif index is not None and index not in ("0",):
            idx = self._index(index, src, st)
            if idx is None or var.unknown_array:
                return False
            els = var.elements
            ref.value = els[idx].pieces if 0 <= idx < len(els) else ()
            if var.array is None and idx != 0:
                ref.value = ()
        else:
            if var.unknown_array and var.array is None and var.scalar is None:
                return False
            ref.value = var.scalar_value()
        return True

    def _plain_param(self, ref: _ParamRef, index: str | None) -> list | None:
        """``$name`` / ``${name[i]}`` without an operator."""
        if ref.status == "unknown":
            return None
        if ref.status == "unset":
            # launchers may set variables the caller's env does not list; a variable
            # the script assigns itself is simply empty on this flow
            return [] if ref.name in self.script_assigned else None
        if ref.elements is not None:
            return _splice(ref.elements, ref.quoted, ref.name == "*" or index == "*")
        assert ref.value is not None
        return _value_parts(ref.value, ref.spelled, ref.span, ref.quoted)

    def _param_op(
        self, ref: _ParamRef, op: str, operand_start: int, src: Source, st: State
    ) -> list | None:
        """``${name OP operand}``; None when the result is not known."""
        operand = _operand_node_range(ref.node, operand_start)
        known_value = ref.value is not None and not is_symbolic(ref.value)
        if ref.elements is not None:
            ref.value = tuple(p for f in ref.elements for p in f.pieces)
            known_value = not is_symbolic(ref.value)
        if op in (":-", "-", ":=", "="):
            return self._default_op(ref, op, operand, known_value, src, st)
        if op in (":+", "+"):
            return self._alternative_op(ref, op, operand, known_value, src, st)
        if op in (":?", "?"):
            if ref.status != "set" or not known_value:
                return None
            return _value_parts(ref.value or (), ref.spelled, ref.span, ref.quoted)
        # string operations need a known value and a known operand
        if ref.status != "set" or not known_value or ref.elements is not None:
            return None
        return self._string_op_param(ref, op, operand, src, st)

    def _default_op(
        self,
        ref: _ParamRef,
        op: str,
        operand: tuple[int, int],
        known_value: bool,
        src: Source,
        st: State,
    ) -> list | None:
        """``${name:-word}``, ``${name-word}``, ``${name:=word}``, ``${name=word}``."""
        if ref.status == "unknown" or (ref.status == "set" and not known_value):
            return None
        empty_counts = op.startswith(":")
        use_default = ref.status == "unset" or (
            empty_counts and known_value and text_of(ref.value or ()) == ""
        )
        if not use_default:
            if ref.elements is not None:
                return _splice(ref.elements, ref.quoted, False)
            return _value_parts(ref.value or (), ref.spelled, ref.span, ref.quoted)
        dparts = self._range(ref.node, src, st, operand[0], operand[1], quoted=True)
        dvalue = _pieces(dparts)
        if op in (":=", "="):
            st.vars[ref.name] = Var(scalar=dvalue, span=ref.span)
        return [(Piece(p.text, p.symbolic, p.span, not ref.quoted), None) for p in dvalue]

    def _alternative_op(
        self,
        ref: _ParamRef,
        op: str,
        operand: tuple[int, int],
        known_value: bool,
        src: Source,
        st: State,
    ) -> list | None:
        """``${name:+word}``, ``${name+word}``."""
        if ref.status == "unknown" or (ref.status == "set" and not known_value):
            return None
        present = ref.status == "set" and (op == "+" or text_of(ref.value or ()) != "")
        if not present:
            return [(Piece("", False, ref.span), None)] if ref.quoted else []
        dparts = self._range(ref.node, src, st, operand[0], operand[1], quoted=True)
        return [(Piece(p.text, p.symbolic, p.span, not ref.quoted), None) for p in _pieces(dparts)]

    def _string_op_param(
        self, ref: _ParamRef, op: str, operand: tuple[int, int], src: Source, st: State
    ) -> list | None:
        """``${name#pat}``, ``${name/a/b}``, ``${name:off:len}``, ... on a known value."""
        operand_text = src.data[operand[0] : operand[1]].decode("utf-8", "replace")
        if "$" in operand_text or "`" in operand_text:
            oparts = self._range(ref.node, src, st, operand[0], operand[1], quoted=True)
            opieces = _pieces(oparts)
            if is_symbolic(opieces):
                return None
            operand_text = text_of(opieces)
        result = _string_op(text_of(ref.value or ()), op, operand_text)
        if result is OVER_BUDGET:
            return [(self.over_budget(ref.node, src), None)]
        if result is None:
            return None
        return [(Piece(result, False, ref.span, not ref.quoted), None)]

    def _index(self, index: str, src: Source, st: State) -> int | None:
        try:
            return int(index)
        except ValueError:
            pass
        name = index.lstrip("$").strip("{}")
        status, var = self.lookup(name, src, st)
        if status == "set" and var is not None and not is_symbolic(var.scalar_value()):
            try:
                return int(text_of(var.scalar_value()))
            except ValueError:
                return None
        return None

    # ------------------------------------------------------------ arithmetic
    def _arith_text(self, text: str, st: State) -> int | None:
        """The value of ``$(( expr ))`` written as ``text`` (parsed on its own)."""
        from servelint.sources.shell.syntax import parse_source

        sub = parse_source("<arithmetic>", b"_=" + text.encode("utf-8", "replace") + b"\n")
        found = [sub.tree.root_node]
        while found and found[-1].type != "arithmetic_expansion":
            node = found.pop()
            found.extend(reversed(node.named_children))
        if not found:
            return None
        return self.arith_node(_first_named(found[-1]), sub, st)

    def arith_node(self, node, src: Source, st: State, depth: int = 0) -> int | None:
        if node is None or depth > 64:
            return None
        self.tick()
        t = node.type
        if t == "number":
            return _to_int(src.text(node))
        if t == "variable_name":
            return self._arith_var(src.text(node), src, st)
        if t in (
            "simple_expansion",
            "expansion",
            "word",
            "string",
            "concatenation",
            "command_substitution",
            "arithmetic_expansion",
        ):
            pieces = self.expand_string(node, src, st)
            if is_symbolic(pieces):
                return None
            text = text_of(pieces).strip()
            value = _to_int(text)
            if value is None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
                return self._arith_var(text, src, st)
            return value
        if t == "parenthesized_expression":
            return self.arith_node(_first_named(node), src, st, depth + 1)
        if t == "ternary_expression":
            cond = self.arith_node(node.child_by_field_name("condition"), src, st, depth + 1)
            if cond is None:
                return None
            branch = "consequence" if cond else "alternative"
            return self.arith_node(node.child_by_field_name(branch), src, st, depth + 1)
        if t == "unary_expression":
            op = node.children[0].type if node.children else ""
            val = self.arith_node(_first_named(node), src, st, depth + 1)
            if val is None:
                return None
            return {"-": -val, "+": val, "!": int(not val), "~": ~val}.get(op)
        if t == "binary_expression":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            op_node = node.child_by_field_name("operator")
            op = op_node.type if op_node is not None else ""
            a = self.arith_node(left, src, st, depth + 1)
            if op == "&&" and a == 0:
                return 0
            if op == "||" and a not in (None, 0):
                return 1
            b = self.arith_node(right, src, st, depth + 1)
            if a is None or b is None:
                return None
            return _binop(op, a, b)
        return None

    def _arith_var(self, name: str, src: Source, st: State) -> int | None:
        status, var = self.lookup(name, src, st)
        if status == "unset":
            return 0
        if status != "set" or var is None:
            return None
        value = var.scalar_value()
        if is_symbolic(value):
            return None
        text = text_of(value).strip()
        if text == "":
            return 0
        return _to_int(text)

    # ------------------------------------------------------ command substitution
    def capture_output(self, stmts, src: Source, st: State) -> Pieces | None:
        return None  # the interpreter runs small substitutions and collects their echo

    def cmdsub(self, node, src: Source, st: State) -> Pieces | None:
        """The substitutions whose output is knowable; None = symbolic."""
        known = self._cmdsub_known(node, src, st)
        if known is not None:
            return known
        stmts = [c for c in node.named_children if c.type != "comment"]
        return self.capture_output(stmts, src, st) if stmts else None

    def _cmdsub_known(self, node, src: Source, st: State) -> Pieces | None:
        stmts = [c for c in node.named_children if c.type != "comment"]
        if len(stmts) != 1:
            return None
        stmt = stmts[0]
        if stmt.type == "redirected_statement":
            body = stmt.child_by_field_name("body")
            heredoc = next((c for c in stmt.children if c.type == "heredoc_redirect"), None)
            if body is not None and heredoc is not None and body.type == "command":
                words = self._words(body, src, st)
                if words and words[0] == "cat" and len(words) == 1:
                    return self.heredoc_pieces(heredoc, src, st)
            return None
        if stmt.type == "list":
            # $(cd DIR && pwd)
            cmds = [c for c in stmt.named_children if c.type == "command"]
            if len(cmds) == 2:
                first = self._words(cmds[0], src, st)
                second = self._words(cmds[1], src, st)
                if (
                    first
                    and len(first) == 2
                    and first[0] == "cd"
                    and second == ["pwd"]
                    and first[1] is not None
                    and os.path.isabs(first[1])
                ):
                    return (Piece(os.path.normpath(first[1])),)
            return None
        if stmt.type != "command":
            return None
        words = self._words(stmt, src, st)
        if not words or any(w is None for w in words):
            return None
        cmd, args = words[0], words[1:]
        if cmd == "dirname" and len(args) == 1:
            return (Piece(os.path.dirname(args[0]) or "."),)
        if cmd == "basename" and 1 <= len(args) <= 2:
            base = os.path.basename(args[0].rstrip("/"))
            if len(args) == 2 and base.endswith(args[1]) and base != args[1]:
                base = base[: -len(args[1])]
            return (Piece(base),)
        if cmd in ("realpath", "readlink") and args and os.path.isabs(args[-1]):
            return (Piece(os.path.normpath(args[-1])),)
        if (cmd == "command" and len(args) == 2 and args[0] == "-v") or (
            cmd == "which" and len(args) == 1
        ):
            return (Piece(args[-1]),)
        if cmd == "echo" and args and not args[0].startswith("-"):
            return (Piece(" ".join(args)),)
        if cmd == "cat" and len(args) == 1 and args[0] in st.files:
            vf = st.files[args[0]]
            if vf.unknown or any(sym for _, _, sym in vf.lines):
                return None
            return (Piece("\n".join(line for line, _, _ in vf.lines)),)
        return None

    def _words(self, cmd_node, src: Source, st: State) -> list[str | None]:
        """Known texts of a simple command's words (None for a symbolic word)."""
        out: list[str | None] = []
        for c in cmd_node.named_children:
            if c.type == "command_name":
                c = _first_named(c) or c
            elif c.type in (
                "variable_assignment",
                "file_redirect",
                "heredoc_redirect",
                "herestring_redirect",
            ):
                return []
            for f in self.expand_fields(c, src, st):
                out.append(None if f.symbolic else f.text)
        return out

    def heredoc_pieces(self, heredoc, src: Source, st: State) -> Pieces:
        start_node = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
        body = next((c for c in heredoc.children if c.type == "heredoc_body"), None)
        if body is None:
            return ()
        delim = src.text(start_node) if start_node is not None else ""
        if delim[:1] in ("'", '"') or "\\" in delim:
            return (Piece(src.text(body), False, src.span(body)),)
        parts = self._range(body, src, st, body.start_byte, body.end_byte, quoted=True)
        return _pieces(parts)


# ---------------------------------------------------------------------- helpers
def _over_budget(parts: list) -> bool:
    """Whether an expansion's parts are over the value budget (servelint.budget)."""
    pieces = [p[0] for p in parts if p is not _BRK]
    if len(pieces) > budget.MAX_VALUE_PIECES + budget.MAX_ARRAY_ITEMS:
        return True
    return sum(len(p.text) for p in pieces) > budget.MAX_VALUE_CHARS


def _short_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _pieces(parts: list) -> Pieces:
    return tuple(p[0] for p in parts if p is not _BRK and p[1] != "Q")


def assemble(parts: list, word_span: Span) -> list[Field]:
    """Join parts into fields, splitting unquoted expansion results on whitespace."""
    if not parts:
        return []
    for part in parts:
        if part is _BRK or part[0].splittable:
            break
    else:  # no field break, nothing to split (most words): exactly one field
        pieces: list[Piece] = []
        spans: list[Span | None] = []
        for piece, hint in parts:
            if hint == "Q":
                continue
            spans.append(hint)
            if piece.text != "" or piece.symbolic:
                pieces.append(piece)
        first = spans[0] if spans else None
        one = first is not None and all(h == first for h in spans)
        return [Field(tuple(pieces), first if one else word_span)]
    fields: list[Field] = []
    cur: list[Piece] = []
    hints: list[Span | None] = []
    started = False

    def flush() -> None:
        nonlocal cur, hints, started
        if started or cur:
            pieces = tuple(p for p in cur if p.text != "" or p.symbolic)
            span = (
                hints[0]
                if hints and all(h is not None and h == hints[0] for h in hints)
                else word_span
            )
            fields.append(Field(pieces, span))
        cur, hints, started = [], [], False

    for part in parts:
        if part is _BRK:
            flush()
            continue
        piece, hint = part
        if hint == "Q":
            started = True
            continue
        if piece.splittable and not piece.symbolic and re.search(r"\s", piece.text):
            offset = 0
            for chunk in re.split(r"(\s+)", piece.text):
                if chunk == "":
                    continue
                if chunk.isspace():
                    flush()
                else:
                    sub = sub_span(piece.span, offset, len(chunk))
                    cur.append(Piece(chunk, False, sub))
                    hints.append(sub)
                    started = True
                offset += len(chunk)
            continue
        if piece.splittable and piece.text == "" and not piece.symbolic:
            continue  # unquoted empty expansion vanishes
        cur.append(piece)
        hints.append(hint)
        if not piece.splittable or piece.text != "":
            started = True
    flush()
    return fields


@dataclass(slots=True)
class _ParamRef:
    """One ``${...}`` being expanded: its node, spelling and what its name selects."""

    node: Any
    spelled: str
    span: Span
    quoted: bool
    name: str
    status: str  # "set", "unset" or "unknown"
    value: Pieces | None = None
    elements: tuple[Field, ...] | None = None


def _param_length(status: str, var: Var | None, whole_array: bool, span: Span) -> list | None:
    """``${#name}`` / ``${#name[@]}``; None when not known."""
    if status != "set" or var is None:
        return None if status == "unknown" else [(Piece("0", False, span), None)]
    if whole_array:
        if var.unknown_array:
            return None
        return [(Piece(str(len(var.elements)), False, span), None)]
    value = var.scalar_value()
    return None if is_symbolic(value) else [(Piece(str(len(text_of(value))), False, span), None)]


def _splice(elements: tuple[Field, ...], quoted: bool, star: bool) -> list:
    if not elements:
        return []
    if star and quoted:
        text = " ".join(f.text for f in elements)
        sym = any(f.symbolic for f in elements)
        return [(Piece(text, sym, elements[0].span), None)]
    out: list = []
    for i, f in enumerate(elements):
        if i:
            out.append(_BRK)
        if not f.pieces:
            out.append((Piece("", False, f.span, not quoted), f.span))
        for p in f.pieces:
            out.append((Piece(p.text, p.symbolic, p.span, not quoted), f.span))
    return out


def _value_parts(value: Pieces, spelled: str, span: Span, quoted: bool) -> list:
    if len(value) == 1 and value[0].symbolic:
        # a wholly unknown value: show the use-site spelling
        return [(Piece(spelled.strip('"'), True, span), None)]
    return [(Piece(p.text, p.symbolic, p.span, not quoted), None) for p in value]


def _param_shape(node, src: Source):
    """-> (name, index, prefix-op, op, operand start byte)."""
    if node.type == "simple_expansion":
        named = _first_named(node)
        if named is None:
            return None, None, None, None, 0
        return src.text(named), None, None, None, 0
    name = index = prefix = op = None
    operand_start = 0
    seen_name = False
    for c in node.children:
        if c.type in ("${", "}"):
            continue
        if not seen_name:
            if c.type in ("#", "!") and not c.is_named:
                prefix = c.type
                continue
            if c.type in ("variable_name", "special_variable_name"):
                name, seen_name = src.text(c), True
                continue
            if c.type == "subscript":
                n = c.child_by_field_name("name")
                i = c.child_by_field_name("index")
                name = src.text(n) if n is not None else None
                index = src.text(i) if i is not None else None
                seen_name = True
                continue
            if c.type in ("@", "*", "#", "?", "$", "!", "0", "-") or c.type.isdigit():
                name, seen_name = c.type, True
                continue
            return None, None, None, None, 0
        if op is None and not c.is_named:
            op = c.type
            operand_start = c.end_byte
            break
    if name is None and prefix == "#":
        name, prefix = "#", None
    return name, index, prefix, op, operand_start


def _operand_node_range(node, start: int) -> tuple[int, int]:
    end = node.end_byte - 1  # before "}"
    return (start, max(start, end))


def _string_op(value: str, op: str, operand: str) -> str | None:
    """The result of ``${X<op><operand>}`` on a known value (None: left symbolic, also when
    the work or the result would be over the budget)."""
    if op in ("%", "%%", "#", "##") and len(value) > budget.MAX_PATTERN_INPUT:
        return OVER_BUDGET
    if op in ("%", "%%", "#", "##"):
        rx = glob_regex(operand)
        greedy = op in ("%%", "##")
        if op.startswith("#"):
            best = None
            for i in range(len(value) + 1):
                if re.fullmatch(rx, value[:i], re.S):
                    best = i
                    if not greedy:
                        break
            return value if best is None else value[best:]
        best = None
        for i in range(len(value), -1, -1):
            if re.fullmatch(rx, value[i:], re.S):
                best = i
                if not greedy:
                    break
        return value if best is None else value[:best]
    if op in ("/", "//"):
        pat, _, rep = operand.partition("/")
        if not pat:
            return None
        rx = glob_regex(pat)
        count = 0 if op == "//" else 1
        if rep and len(value) + len(rep) * _matches(rx, value, count) > budget.MAX_VALUE_CHARS:
            return OVER_BUDGET
        return re.sub(rx, lambda _m: rep, value, count=count)
    if op == ",,":
        return value.lower()
    if op == "^^":
        return value.upper()
    if op == ",":
        return value[:1].lower() + value[1:]
    if op == "^":
        return value[:1].upper() + value[1:]
    if op == ":":
        nums = operand.split(":")
        try:
            off = int(nums[0].strip() or 0)
            if len(nums) > 1:
                length = int(nums[1].strip())
                return value[off : off + length] if length >= 0 else value[off:length]
            return value[off:]
        except ValueError:
            return None
    return None


def _matches(rx: str, value: str, count: int) -> int:
    """How many replacements ``re.sub(rx, …, value, count)`` makes."""
    found = 0
    for _m in re.finditer(rx, value):
        found += 1
        if found == count:
            break
    return found


def _binop(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%") and b == 0:
        return None
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    table = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "**": lambda: a**b if 0 <= b < 64 else None,
        "<<": lambda: a << b if 0 <= b < 64 else None,
        ">>": lambda: a >> b if b >= 0 else None,
        "<": lambda: int(a < b),
        ">": lambda: int(a > b),
        "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b),
        "==": lambda: int(a == b),
        "!=": lambda: int(a != b),
        "&": lambda: a & b,
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "&&": lambda: int(bool(a) and bool(b)),
        "||": lambda: int(bool(a) or bool(b)),
    }
    fn = table.get(op)
    return fn() if fn else None


def _to_int(text: str) -> int | None:
    text = text.strip()
    try:
        if re.fullmatch(r"[+-]?0[0-7]+", text):
            return int(text, 8)
        if re.fullmatch(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)", text):
            return int(text, 0)
        m = re.fullmatch(r"(\d+)#([0-9a-zA-Z]+)", text)
        if m:
            return int(m.group(2), int(m.group(1)))
    except ValueError:
        return None
    return None


def _first_named(node):
    for c in node.children:
        if c.is_named:
            return c
    return None


def _unescape_unquoted(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""))


def _unescape_dquote(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r'\\([$`"\\])', r"\1", text.replace("\\\n", ""))


def _inner(span: Span) -> tuple[int, int, int | None, int | None]:
    end_col = span.end_column - 1 if span.end_column else None
    return span.line, span.column + 1, span.end_line, end_col


def _looks_arithmetic(text: str) -> bool:
    return text.startswith("$((") and text.endswith("))")
