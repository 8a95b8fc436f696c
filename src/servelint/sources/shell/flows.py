"""Operations on flows (``State``): fork, join, content keys, remembered conditions, files a
flow writes."""

from __future__ import annotations

import re
from itertools import compress
from operator import is_not

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.model import Span
from servelint.sources.shell.values import (
    Piece,
    Pieces,
    State,
    Var,
    VFile,
)


def unknown_var(name: str, exported: bool = False) -> Var:
    return Var(scalar=(Piece(f"${name}", True),), exported=exported, unknown_array=True)


def flow_keys(states: list[State]) -> list[tuple]:
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
        out.append(
            (
                tuple([sv.get(n) for n in ordered]) if ordered else (),
                tuple([id(sf[k][0]) if k in sf else None for k in fordered]) if fordered else (),
                tuple(sorted([(k, v.lines, v.unknown) for k, v in s.files.items()]))
                if s.files
                else (),
                tuple([id(i) for i in s.installs]),
                s.positional,
                s.flow,
                tuple(s.capture) if s.capture is not None else None,
            )
        )
    return out


_MISSING = object()


def fork(st: State) -> State:
    """A copy of a flow that shares its function table (which is replaced, not changed)."""
    new = st.copy()
    new.funcs = st.funcs
    return new


def short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def common_prefix(label_lists: list[tuple[str, ...]]) -> tuple[str, ...]:
    if not label_lists:
        return ()
    first = label_lists[0]
    n = 0
    while n < len(first) and all(len(lab) > n and lab[n] == first[n] for lab in label_lists):
        n += 1
    return first[:n]


_VAR_REF = re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)")


def remember(st: State, cond: str, truth: bool) -> None:
    names = sorted(set(_VAR_REF.findall(cond)))
    if names:
        st.facts[cond] = (truth, tuple((n, st.vars.get(n)) for n in names))


def recall(st: State, cond: str) -> bool | None:
    """A condition decided earlier in this flow, if none of its variables changed since."""
    fact = st.facts.get(cond)
    if fact is None:
        return None
    truth, snapshot = fact
    if all(st.vars.get(n) is v for n, v in snapshot):
        return truth
    return None


def join_flows(states: list[State], label: bool = True) -> State:
    """Join flows into one: values that differ become symbolic."""
    base = fork(states[0])
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
    base.labels = common_prefix([s.labels for s in states]) + (
        (f"any of {len(states)} shell branches",) if label else ()
    )
    base.facts = {}
    if any(s.ret != base.ret for s in states):
        base.ret = None
    return base


def write_file(st: State, path: str, content: Pieces, append: bool) -> None:
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
                cur_span = Span(
                    p.span.path, line, max(col, 1), line, max(col, 1) + len(cur) + len(chunk)
                )
            cur += chunk
            cur_sym = cur_sym or p.symbolic
    if cur:
        lines.append((cur, cur_span, cur_sym))
    lines = [
        (t, Span(s.path, s.line, s.column, s.line, s.column + len(t)) if s else None, sym)
        for t, s, sym in lines
    ]
    old = st.files.get(path)
    if append and old is not None:
        st.files[path] = VFile(old.lines + tuple(lines), old.unknown)
    else:
        st.files[path] = VFile(tuple(lines))
