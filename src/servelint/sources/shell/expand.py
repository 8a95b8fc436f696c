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
import os
import re

from servelint.model import Span
from servelint.sources.shell.arith import ArithMixin, looks_arithmetic
from servelint.sources.shell.params import ParamMixin
from servelint.sources.shell.parts import (
    BRK,
    QUOTED,
    first_named,
    pieces_of,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Pieces,
    Source,
    State,
    Var,
    sub_span,
)
from servelint.util import budget

_WORD_NODES = ("word", "number", "extglob_pattern", "regex", "test_operator")
# nodes whose parts never depend on the flow (a "string" only when all its children are text)
_STATIC_NODES = frozenset((*_WORD_NODES, "raw_string", "ansi_c_string", "string_content", "string"))
_UNSEEN = object()


class Expander(ParamMixin, ArithMixin):
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
            if p is not BRK and p[1] != "Q" and (p[0].text != "" or p[0].symbolic)
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
            return [QUOTED, *inner]  # "" is still a word
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
            val = self.arith_node(first_named(node), src, st)
            if val is None:
                return [(Piece(src.text(node), True, src.span(node)), None)]
            return [(Piece(str(val), False, src.span(node)), None)]
        if t == "command_substitution" and looks_arithmetic(src.text(node)):
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
                c = first_named(c) or c
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
        return pieces_of(parts)


# ---------------------------------------------------------------------- helpers
def _over_budget(parts: list) -> bool:
    """Whether an expansion's parts are over the value budget (servelint.util.budget)."""
    pieces = [p[0] for p in parts if p is not BRK]
    if len(pieces) > budget.MAX_VALUE_PIECES + budget.MAX_ARRAY_ITEMS:
        return True
    return sum(len(p.text) for p in pieces) > budget.MAX_VALUE_CHARS


def _short_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def assemble(parts: list, word_span: Span) -> list[Field]:
    """Join parts into fields, splitting unquoted expansion results on whitespace."""
    if not parts:
        return []
    for part in parts:
        if part is BRK or part[0].splittable:
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
        if part is BRK:
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
