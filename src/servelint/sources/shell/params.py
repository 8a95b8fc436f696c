"""Parameter expansion of the static bash reader: ``${name}``, ``${name:-default}``,
``${name#pattern}`` and the other operators, arrays, indirection and lengths (a mixin of
:class:`~.expand.Expander`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from servelint.model import Span
from servelint.sources.shell.parts import (
    BRK,
    OVER_BUDGET,
    first_named,
    glob_regex,
    pieces_of,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Pieces,
    Source,
    State,
    Var,
    is_symbolic,
    text_of,
)
from servelint.util import budget


@dataclass(slots=True)
class ParamRef:
    """One ``${...}`` being expanded: its node, spelling and what its name selects."""

    node: Any
    spelled: str
    span: Span
    quoted: bool
    name: str
    status: str  # "set", "unset" or "unknown"
    value: Pieces | None = None
    elements: tuple[Field, ...] | None = None


def param_length(status: str, var: Var | None, whole_array: bool, span: Span) -> list | None:
    """``${#name}`` / ``${#name[@]}``; None when not known."""
    if status != "set" or var is None:
        return None if status == "unknown" else [(Piece("0", False, span), None)]
    if whole_array:
        if var.unknown_array:
            return None
        return [(Piece(str(len(var.elements)), False, span), None)]
    value = var.scalar_value()
    return None if is_symbolic(value) else [(Piece(str(len(text_of(value))), False, span), None)]


def splice(elements: tuple[Field, ...], quoted: bool, star: bool) -> list:
    if not elements:
        return []
    if star and quoted:
        text = " ".join(f.text for f in elements)
        sym = any(f.symbolic for f in elements)
        return [(Piece(text, sym, elements[0].span), None)]
    out: list = []
    for i, f in enumerate(elements):
        if i:
            out.append(BRK)
        if not f.pieces:
            out.append((Piece("", False, f.span, not quoted), f.span))
        for p in f.pieces:
            out.append((Piece(p.text, p.symbolic, p.span, not quoted), f.span))
    return out


def value_parts(value: Pieces, spelled: str, span: Span, quoted: bool) -> list:
    if len(value) == 1 and value[0].symbolic:
        # a wholly unknown value: show the use-site spelling
        return [(Piece(spelled.strip('"'), True, span), None)]
    return [(Piece(p.text, p.symbolic, p.span, not quoted), None) for p in value]


def param_shape(node, src: Source):
    """-> (name, index, prefix-op, op, operand start byte)."""
    if node.type == "simple_expansion":
        named = first_named(node)
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


def operand_node_range(node, start: int) -> tuple[int, int]:
    end = node.end_byte - 1  # before "}"
    return (start, max(start, end))


def string_op(value: str, op: str, operand: str) -> str | None:
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
        if rep and len(value) + len(rep) * matches(rx, value, count) > budget.MAX_VALUE_CHARS:
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


def matches(rx: str, value: str, count: int) -> int:
    """How many replacements ``re.sub(rx, …, value, count)`` makes."""
    found = 0
    for _m in re.finditer(rx, value):
        found += 1
        if found == count:
            break
    return found


class ParamMixin:
    """``${...}``: the caller is an ``Expander``."""

    # ----------------------------------------------------------- parameters
    def param(self, node, src: Source, st: State, quoted: bool) -> list:
        spelled = src.text(node)
        span = src.span(node)
        sym = [(Piece(spelled, True, span), None)]
        key = ("param_shape", node.start_byte, node.end_byte, node.type)
        shape = src.memo.get(key)
        if shape is None:  # a pure function of the node: once per parsed source
            shape = src.memo[key] = param_shape(node, src)
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
            parts = param_length(status, var, whole_array, span)
            return sym if parts is None else parts
        ref = ParamRef(node, spelled, span, quoted, name, status)
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
        ref: ParamRef,
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

    def _plain_param(self, ref: ParamRef, index: str | None) -> list | None:
        """``$name`` / ``${name[i]}`` without an operator."""
        if ref.status == "unknown":
            return None
        if ref.status == "unset":
            # launchers may set variables the caller's env does not list; a variable
            # the script assigns itself is simply empty on this flow
            return [] if ref.name in self.script_assigned else None
        if ref.elements is not None:
            return splice(ref.elements, ref.quoted, ref.name == "*" or index == "*")
        assert ref.value is not None
        return value_parts(ref.value, ref.spelled, ref.span, ref.quoted)

    def _param_op(
        self, ref: ParamRef, op: str, operand_start: int, src: Source, st: State
    ) -> list | None:
        """``${name OP operand}``; None when the result is not known."""
        operand = operand_node_range(ref.node, operand_start)
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
            return value_parts(ref.value or (), ref.spelled, ref.span, ref.quoted)
        # string operations need a known value and a known operand
        if ref.status != "set" or not known_value or ref.elements is not None:
            return None
        return self._string_op_param(ref, op, operand, src, st)

    def _default_op(
        self,
        ref: ParamRef,
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
                return splice(ref.elements, ref.quoted, False)
            return value_parts(ref.value or (), ref.spelled, ref.span, ref.quoted)
        dparts = self._range(ref.node, src, st, operand[0], operand[1], quoted=True)
        dvalue = pieces_of(dparts)
        if op in (":=", "="):
            st.vars[ref.name] = Var(scalar=dvalue, span=ref.span)
        return [(Piece(p.text, p.symbolic, p.span, not ref.quoted), None) for p in dvalue]

    def _alternative_op(
        self,
        ref: ParamRef,
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
        return [
            (Piece(p.text, p.symbolic, p.span, not ref.quoted), None) for p in pieces_of(dparts)
        ]

    def _string_op_param(
        self, ref: ParamRef, op: str, operand: tuple[int, int], src: Source, st: State
    ) -> list | None:
        """``${name#pat}``, ``${name/a/b}``, ``${name:off:len}``, ... on a known value."""
        operand_text = src.data[operand[0] : operand[1]].decode("utf-8", "replace")
        if "$" in operand_text or "`" in operand_text:
            oparts = self._range(ref.node, src, st, operand[0], operand[1], quoted=True)
            opieces = pieces_of(oparts)
            if is_symbolic(opieces):
                return None
            operand_text = text_of(opieces)
        result = string_op(text_of(ref.value or ()), op, operand_text)
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
