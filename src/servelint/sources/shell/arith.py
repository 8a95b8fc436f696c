"""Arithmetic of the static bash reader: ``$(( ))``, ``(( ))`` and ``let`` over known integers
(a mixin of :class:`~.expand.Expander`)."""

from __future__ import annotations

import re

from servelint.sources.shell.parts import (
    first_named,
)
from servelint.sources.shell.syntax import ParseTimeout, parse_source
from servelint.sources.shell.values import (
    Source,
    State,
    is_symbolic,
    text_of,
)

_INT_BITS = 64  # bash computes in intmax_t: results wrap around (two's complement)


def wrap(value: int | None) -> int | None:
    """``value`` as bash's 64-bit signed integer holds it (``$(( (1<<62)*4 ))`` is 0)."""
    if value is None:
        return None
    half = 1 << (_INT_BITS - 1)
    return ((value + half) % (1 << _INT_BITS)) - half


def binop(op: str, a: int, b: int) -> int | None:
    """``a op b`` as bash computes it, wrapped to 64 bits; None where bash fails."""
    return wrap(_binop(op, a, b))


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
        "**": lambda: pow(a, b, 1 << _INT_BITS) if b >= 0 else None,
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


def to_int(text: str) -> int | None:
    """An integer constant as bash reads it (octal, hex, ``base#digits``), wrapped to 64 bits."""
    return wrap(_to_int(text))


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


def looks_arithmetic(text: str) -> bool:
    return text.startswith("$((") and text.endswith("))")


class ArithMixin:
    """Integer arithmetic: the caller is an ``Expander``."""

    # ------------------------------------------------------------ arithmetic
    def _arith_text(self, text: str, st: State) -> int | None:
        """The value of ``$(( expr ))`` written as ``text`` (parsed on its own)."""
        try:
            sub = parse_source("<arithmetic>", b"_=" + text.encode("utf-8", "replace") + b"\n")
        except ParseTimeout:
            return None
        found = [sub.tree.root_node]
        while found and found[-1].type != "arithmetic_expansion":
            node = found.pop()
            found.extend(reversed(node.named_children))
        if not found:
            return None
        return self.arith_node(first_named(found[-1]), sub, st)

    def arith_node(self, node, src: Source, st: State, depth: int = 0) -> int | None:
        if node is None or depth > 64:
            return None
        self.tick()
        t = node.type
        if t == "number":
            return to_int(src.text(node))
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
            value = to_int(text)
            if value is None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
                return self._arith_var(text, src, st)
            return value
        if t == "parenthesized_expression":
            return self.arith_node(first_named(node), src, st, depth + 1)
        if t == "ternary_expression":
            cond = self.arith_node(node.child_by_field_name("condition"), src, st, depth + 1)
            if cond is None:
                return None
            branch = "consequence" if cond else "alternative"
            return self.arith_node(node.child_by_field_name(branch), src, st, depth + 1)
        if t == "unary_expression":
            op = node.children[0].type if node.children else ""
            val = self.arith_node(first_named(node), src, st, depth + 1)
            if val is None:
                return None
            return wrap({"-": -val, "+": val, "!": int(not val), "~": ~val}.get(op))
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
            return binop(op, a, b)
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
        return to_int(text)
