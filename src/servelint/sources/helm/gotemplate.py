"""A small Go-template renderer for the part of a chart that writes an engine command.

It renders a template fragment against a values tree (``yamlpos`` nodes, spans kept) and
returns the output lines, each with the span of the values entry that decided it (the
condition of the innermost ``if``/``with``/``range``), and every expression's output as a
``Piece`` with the span of the value it printed. It knows the actions a chart's command
block uses (``if``/``else if``/``else``, ``with``, ``range``, ``$x := …``) and the
functions ``hasKey eq ne and or not toString quote default required kindIs ternary``;
anything else (``include``, ``toYaml``, ``tpl``, ...) is ``UNKNOWN``: printed as a symbolic
piece, false as a condition (the rendering notes it). Nothing is executed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from servelint.model import Span
from servelint.sources.common.yamlpos import Map, Scalar, Seq


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)


@dataclass(slots=True)
class Piece:
    text: str
    span: Span | None
    symbolic: bool = False
    quoted: bool = False  # printed through ``quote``: inside a longer text it has quotes


@dataclass(slots=True, eq=False)
class _Quoted:
    """A value ``quote`` printed: its text inside double quotes."""

    value: object


@dataclass(slots=True)
class Line:
    parts: list[str | Piece]
    context: Span | None


@dataclass(slots=True)
class _Frame:
    dot: object
    vars: dict[str, object]
    context: Span | None


@dataclass(slots=True)
class Rendered:
    lines: list[Line] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # conditions that could not be decided


def tokens(template: str) -> list[tuple[str, str]]:
    """The template as ("text", s) and ("action", s) tokens, ``{{-``/``-}}`` trimming done."""
    out: list[tuple[str, str]] = []
    cursor = 0
    for m in _ACTION.finditer(template):
        text = template[cursor:m.start()]
        if m.group(1):
            text = text.rstrip()
        if out and out[-1][0] == "trim":
            out.pop()
            text = text.lstrip()
        out.append(("text", text))
        out.append(("action", m.group(2)))
        if m.group(3):
            out.append(("trim", ""))
        cursor = m.end()
    text = template[cursor:]
    if out and out[-1][0] == "trim":
        out.pop()
        text = text.lstrip()
    out.append(("text", text))
    return out


def _plain(value: object) -> object:
    if isinstance(value, _Quoted):
        value = value.value
    if isinstance(value, Scalar):
        return value.value
    return value


def _span(value: object) -> Span | None:
    if isinstance(value, _Quoted):
        value = value.value
    return value.span if isinstance(value, (Scalar, Map, Seq)) else None


def _truthy(value: object) -> bool | None:
    if value is UNKNOWN:
        return None
    value = _plain(value)
    if isinstance(value, (Map, Seq)):
        return len(value) > 0
    return bool(value) and value != 0


def _text(value: object) -> str:
    value = _plain(value)
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Renderer:
    """Renders one template fragment (see the module doc)."""

    def __init__(self, root: object, variables: dict[str, object], context: Span | None) -> None:
        self.frames = [_Frame(root, dict(variables), context)]
        self.out = Rendered()
        self.current: list[str | Piece] = []

    def render(self, template: str) -> Rendered:
        toks = tokens(template)
        self._block(toks, 0, emit=True)
        self._emit_text("\n")
        return self.out

    # --------------------------------------------------------------- structure
    def _block(self, toks: list[tuple[str, str]], i: int, emit: bool) -> tuple[int, str]:
        """Run tokens from ``i`` until an ``else``/``end`` of this level -> (index, word)."""
        while i < len(toks):
            kind, body = toks[i]
            if kind == "text":
                if emit:
                    self._emit_text(body)
                i += 1
                continue
            word = body.split(None, 1)[0] if body else ""
            if word in ("end", "else"):
                return i, body
            if word == "if":
                i = self._if(toks, i, emit)
            elif word in ("with", "range"):
                i = self._scope(toks, i, emit, word)
            else:
                if emit:
                    self._statement(body)
                i += 1
        return i, ""

    def _skip(self, toks: list[tuple[str, str]], i: int) -> tuple[int, str]:
        return self._block(toks, i, emit=False)

    def _if(self, toks: list[tuple[str, str]], i: int, emit: bool) -> int:
        cond = toks[i][1][2:].strip()
        taken = False
        i += 1
        while True:
            decided, span = self._condition(cond) if emit and not taken else (False, None)
            run = emit and not taken and decided
            if run:
                self.frames.append(_Frame(self.frames[-1].dot, self.frames[-1].vars,
                                          span or self.frames[-1].context))
            i, stop = self._block(toks, i, emit=run)
            if run:
                self.frames.pop()
                taken = True
            if stop.startswith("else"):
                rest = stop[4:].strip()
                cond = rest[2:].strip() if rest.startswith("if") else "true"
                i += 1
                continue
            return i + 1

    def _scope(self, toks: list[tuple[str, str]], i: int, emit: bool, word: str) -> int:
        expr = toks[i][1][len(word):].strip()
        var = None
        m = re.match(r"(\$\w+)\s*:=\s*(.*)", expr)
        if m:
            var, expr = m.group(1), m.group(2)
        value = self._pipeline(expr) if emit else None
        items: list[object] = []
        if emit and _truthy(value):
            if word == "with":
                items = [value]
            elif isinstance(value, Seq):
                items = list(value.items)
        start = i + 1
        end = start
        for item in items:
            # a range item decides its lines; `with` keeps the enclosing entry's place
            where = _span(item) if word == "range" else None
            frame = _Frame(item, dict(self.frames[-1].vars), where or self.frames[-1].context)
            if var:
                frame.vars[var] = item
            self.frames.append(frame)
            end, _ = self._block(toks, start, emit=True)
            self.frames.pop()
        if not items:
            end, _ = self._skip(toks, start)
        if toks[end][1].startswith("else") if end < len(toks) else False:
            end, _ = self._block(toks, end + 1, emit=emit and not items)
        return end + 1

    def _statement(self, body: str) -> None:
        m = re.match(r"(\$\w+)\s*:?=\s*(.*)", body)
        if m:
            self.frames[-1].vars[m.group(1)] = self._pipeline(m.group(2))
            return
        if body.startswith(("/*", "define", "template", "block")):
            return
        value = self._pipeline(body)
        if value is UNKNOWN:
            self.current.append(Piece("{{ " + body + " }}", self.frames[-1].context, True))
        else:
            self.current.append(Piece(_text(value), _span(value) or self.frames[-1].context,
                                      quoted=isinstance(value, _Quoted)))

    def _emit_text(self, text: str) -> None:
        lines = text.split("\n")
        for k, part in enumerate(lines):
            if part:
                self.current.append(part)
            if k < len(lines) - 1:
                self.out.lines.append(Line(self.current, self.frames[-1].context))
                self.current = []

    def _condition(self, cond: str) -> tuple[bool, Span | None]:
        self.read_spans: list[Span] = []
        value = self._pipeline(cond)
        truth = _truthy(value)
        if truth is None:
            self.out.unknown.append(cond)
        return bool(truth), (self.read_spans[0] if self.read_spans else None)

    # ------------------------------------------------------------ expressions
    def _pipeline(self, text: str) -> object:
        stages = [s.strip() for s in _split_pipes(text)]
        value: object = None
        for k, stage in enumerate(stages):
            args = _words(stage)
            if not args:
                return UNKNOWN
            extra = [value] if k else []
            value = self._command(args, extra)
        return value

    def _command(self, args: list[str], piped: list[object]) -> object:
        head = args[0]
        if head in _FUNCS:
            return _FUNCS[head]([self._term(a) for a in args[1:]] + piped)
        if len(args) == 1 and not piped:
            return self._term(head)
        return UNKNOWN

    def _term(self, word: str) -> object:
        if word.startswith("(") and word.endswith(")"):
            return self._pipeline(word[1:-1])
        if word.startswith('"') and word.endswith('"') and len(word) >= 2:
            return word[1:-1]
        if word in ("true", "false"):
            return word == "true"
        if re.fullmatch(r"-?\d+", word):
            return int(word)
        if word.startswith("$") or word.startswith("."):
            value = self._path(word)
            span = _span(value)
            if span is not None and hasattr(self, "read_spans"):
                self.read_spans.append(span)
            return value
        return UNKNOWN

    def _path(self, word: str) -> object:
        frame = self.frames[-1]
        if word.startswith("$"):
            name, _, rest = word.partition(".")
            base = frame.vars.get(name, UNKNOWN)
        else:
            base, rest = frame.dot, word[1:]
        for key in [k for k in rest.split(".") if k]:
            if isinstance(base, Map):
                base = base.get(key)
            else:
                return None if base is not UNKNOWN else UNKNOWN
        return base


def _split_pipes(text: str) -> list[str]:
    out, depth, quote, cur = [], 0, False, []
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        elif not quote and depth == 0 and ch == "|":
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return out


def _words(stage: str) -> list[str]:
    out, depth, quote, cur = [], 0, False, []
    for ch in stage:
        if ch == '"' and depth == 0:
            quote = not quote
        if not quote and ch == "(":
            depth += 1
        if not quote and ch == ")":
            depth -= 1
        if ch.isspace() and not quote and depth == 0:
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def _has_key(a: list[object]) -> object:
    if len(a) != 2 or a[0] is UNKNOWN:
        return UNKNOWN
    return isinstance(a[0], Map) and _text(a[1]) in a[0]


def _eq(a: list[object]) -> object:
    if len(a) < 2 or any(x is UNKNOWN for x in a):
        return UNKNOWN
    return any(_text(a[0]) == _text(x) for x in a[1:])  # Go: eq a b c is a==b || a==c


def _and(a: list[object]) -> object:
    truths = [_truthy(x) for x in a]
    if False in truths:
        return False
    return UNKNOWN if None in truths else (a[-1] if a else True)


def _or(a: list[object]) -> object:
    for x in a:
        if _truthy(x):
            return x
    return UNKNOWN if any(_truthy(x) is None for x in a) else False


def _quote(a: list[object]) -> object:
    return _Quoted(a[-1]) if a and a[-1] is not UNKNOWN else UNKNOWN


def _default(a: list[object]) -> object:
    if len(a) != 2:
        return UNKNOWN
    return a[1] if _truthy(a[1]) else a[0]


def _kind_is(a: list[object]) -> object:
    if len(a) != 2 or a[1] is UNKNOWN:
        return UNKNOWN
    value = _plain(a[1])
    kind = {"string": str, "map": Map, "slice": Seq, "bool": bool}.get(_text(a[0]))
    return UNKNOWN if kind is None else isinstance(value, kind)


_FUNCS = {
    "hasKey": _has_key,
    "eq": _eq,
    "ne": lambda a: UNKNOWN if (r := _eq(a)) is UNKNOWN else not r,
    "and": _and,
    "or": _or,
    "not": lambda a: UNKNOWN if not a or _truthy(a[0]) is None else not _truthy(a[0]),
    "toString": lambda a: _text(a[-1]) if a and a[-1] is not UNKNOWN else UNKNOWN,
    "quote": _quote,
    "default": _default,
    "required": lambda a: a[-1] if a and _truthy(a[-1]) else UNKNOWN,
    "kindIs": _kind_is,
    "ternary": lambda a: UNKNOWN if len(a) != 3 or _truthy(a[2]) is None
    else (a[0] if _truthy(a[2]) else a[1]),
}
