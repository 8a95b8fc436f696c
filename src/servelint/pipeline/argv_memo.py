"""The one memo for argv verdicts: a pure function of (release, argv texts, symbolic marks).

For each release and argv (which tokens are symbolic included) the memo keeps one entry:
the release's parse of the argv, the findings of every ``Scope.ARGV`` rule with their spans
as argv indices, and facts rules derive from the parse alone. A launch gets the
entry's findings with its own spans and rendering attached (``findings``). A corpus has far
fewer distinct argvs than launches (the recipes corpus: 11,375 argvs for 33,875 launches).

An argv rule reads nothing of the launch but its argv, the release's profile and the
history. It runs once per entry on a *shadow* launch whose tokens carry placeholder spans
naming their argv index; a finding whose span is not a placeholder (the rule read something
else after all) makes that rule run on every launch of the entry instead. A finding's fix
edits are templated the same way: each edit's span must be a token's (placeholder) span,
narrowed by the edit's ``old`` text, never a column computed from it.

Parses are shared further between argvs that differ only in values that cannot change the
parse (the model positional, decimal values of int options without choices), the values put
back before rules see them: such a shared parse is an entry of the same memo, under its
canonical argv. The memo is bounded (least recently used dropped first): dropping an entry
only costs time, since each is a function of its key. Measured gain: see
``docs/architecture.md`` ("Speed machinery").
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

from servelint.engines import registry
from servelint.engines.lint_parse import LintParse, lint_parse
from servelint.model import Edit, Finding, Fix, LaunchSpec, Span, Token
from servelint.profiles import Profile
from servelint.rules.base import CheckContext
from servelint.sources.common.option_files import WRITTEN_CONFIG
from servelint.util.lru import Lru

MAX_ENTRIES = 20480  # argv verdicts and the canonical parses they share, kept


_MEMO = Lru(MAX_ENTRIES)


def parse(
    profile: Profile,
    argv: tuple[str, ...],
    symbolic: tuple[int, ...] = (),
    entry: str = "",
    written: tuple[str, str] | None = None,
    named: tuple | None = None,
) -> LintParse:
    """The memo entry of ``argv`` on ``profile``'s release (its parse; read-only). ``entry``:
    the argv model's name for the entrypoint when it pre-processes argv (``sglang serve``).
    ``written``: (name, text) of a config file the document writes, read by the parse in
    place of the file of that name. ``named``: ``named_files(argv)``, when already read."""
    named = named_files(argv) if named is None else named
    key = ("argv", profile.key, argv, symbolic, entry, named, written)
    return _MEMO.get_or(key, lambda: _parse(profile, argv, symbolic, entry, written, named))


def named_files(argv: tuple[str, ...]) -> tuple:
    """The state of the YAML/JSON files ``argv`` names (an SGLang ``--config FILE`` is read
    by the parse): part of the memo keys, so an edited file is parsed again in the same
    process. Writing a file changes its ctime, which no one can set back."""
    out = []
    for text in argv:
        name = text.split("=", 1)[-1]
        if name.endswith((".yaml", ".yml", ".json")):
            try:
                st = os.stat(name)
                out.append((name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
            except (OSError, ValueError):
                out.append((name, None))
    return tuple(out)


@dataclass(slots=True, frozen=True)
class ArgvKey:
    """The part of a launch's memo key that is the same on every release of ``engine``:
    ``--works-on`` judges one launch on up to every release (the Qwen recipes: 7,498
    launches, 232,089 verdicts), so it is read off the launch once, not once per release."""

    engine: str
    texts: tuple[str, ...]
    symbolic: tuple[int, ...]
    entry: str
    written: tuple[str, str] | None
    named: tuple


def argv_key(spec: LaunchSpec, engine: str) -> ArgvKey:
    texts = tuple(t.text for t in spec.argv)
    symbolic = tuple(i for i, t in enumerate(spec.argv) if t.symbolic)
    text = spec.context.get(WRITTEN_CONFIG)
    written = (spec.context.get("config_file", ""), text) if text is not None else None
    entry = entry_of(engine, spec.entrypoint)
    return ArgvKey(engine, texts, symbolic, entry, written, named_files(texts))


def parse_spec(profile: Profile, spec: LaunchSpec, key: ArgvKey | None = None) -> LintParse:
    """The memo entry of the launch on ``profile``'s release; ``key``: ``argv_key(spec)``
    when the caller judges the launch on several releases."""
    if key is None or key.engine != profile.engine:
        key = argv_key(spec, profile.engine)
    return parse(profile, key.texts, key.symbolic, key.entry, key.written, key.named)


def entry_of(engine: str, entrypoint: str) -> str:
    """The argv model's ``ENTRIES`` name for ``entrypoint`` ("" = its default parse)."""
    found = registry.find(engine)
    model = found.argv_model() if found else None
    return getattr(model, "ENTRIES", {}).get(entrypoint, "") if model is not None else ""


def _same_parse_entries(engine: str) -> frozenset[str]:
    """The entries the engine's argv model parses as its default parse (``SAME_PARSE_ENTRIES``)."""
    found = registry.find(engine)
    model = found.argv_model() if found else None
    return getattr(model, "SAME_PARSE_ENTRIES", frozenset())


def findings(rule: Any, ctx: CheckContext) -> list[Finding]:
    """``rule``'s findings on the launch, from the entry of its argv."""
    parsed = ctx.parsed
    memo = parsed.memo if isinstance(parsed, LintParse) else None
    if memo is None or ctx.spec.option_file is not None:  # findings also read the file
        return list(rule.check(ctx))
    key = ("rule", rule.code)
    templates = memo.get(key)
    if templates is None:
        templates = memo[key] = _templates(rule, ctx)
    if templates is False:  # not expressible as templates: run it on this launch
        return list(rule.check(ctx))
    return [_instantiate(t, ctx.spec) for t in templates]


def _parse(
    profile: Profile,
    argv: tuple[str, ...],
    symbolic: tuple[int, ...],
    entry: str,
    written: tuple[str, str] | None,
    named: tuple,
) -> LintParse:
    if entry and entry in _same_parse_entries(profile.engine):
        entry = ""  # parsed as the default is: its memo entry stays apart, its parse not
    canon, changed = _canonical(profile, argv, set(symbolic)) if not entry else (argv, set())
    shared = _MEMO.get_or(
        ("canonical", profile.key, canon, symbolic, entry, named, written),
        lambda: lint_parse(profile, canon, symbolic, entry, written),
    )
    if not changed:
        return LintParse(
            options=shared.options,
            problems=shared.problems,
            positionals=shared.positionals,
            ok=shared.ok,
            routing=shared.routing,
        )
    return _restore(shared, argv, changed)


def _canonical(
    profile: Profile, argv: tuple[str, ...], sym: set[int]
) -> tuple[tuple[str, ...], set[int]]:
    """The argv with values that cannot change the parse replaced by one spelling, so that
    renderings differing only in the model id or an integer size share one parse: the model
    positional, and plain decimal values of int options without choices."""
    out = list(argv)
    changed: set[int] = set()
    if out and not out[0].startswith("-") and 0 not in sym:
        out[0], _ = "model", changed.add(0)
    for i in range(1, len(out)):
        prev, value = argv[i - 1], argv[i]
        if i in sym or not value.isdigit() or not prev.startswith("--") or "=" in prev:
            continue
        act = profile.option_index.get(prev)
        if (
            act is not None
            and act.raw.get("type") == "int"
            and not act.choices
            and act.nargs is None
            and act.kind == "store"
        ):
            out[i] = "1"
            changed.add(i)
    return tuple(out), changed


def _restore(result: LintParse, argv: tuple[str, ...], changed: set[int]) -> LintParse:
    options = [
        _with_value(o, argv[o.value_index])
        if o.value_index in changed and isinstance(o.value, str) and o.value != argv[o.value_index]
        else o
        for o in result.options
    ]
    positionals = list(result.positionals)
    if 0 in changed and positionals:
        positionals[0] = argv[0]
    return LintParse(
        options=options, problems=result.problems, positionals=positionals, ok=result.ok
    )


def _with_value(option: Any, value: str) -> Any:
    """A copy of a parsed option with another value (cheaper than dataclasses.replace)."""
    copy = object.__new__(type(option))
    copy.__dict__.update(option.__dict__, value=value)
    if copy.__dict__.get("typed") is not None and value.isdigit():
        copy.__dict__["typed"] = (int(value),)  # the converted value of an int option
    return copy


_SHADOW = "\0argv"  # path of a placeholder span; its line is the argv index (0: the anchor)


@dataclass(slots=True, eq=False)
class _Template:
    """One memoised argv finding, its spans given as argv indices."""

    finding: Finding  # span and related spans are placeholders; renderings empty
    index: int  # argv index of the span (-1: the launch's anchor)
    related: tuple[int, ...]
    edits: tuple[int, ...]  # argv index of each autofix edit's span


def _shadow_span(index: int) -> Span:
    return Span(_SHADOW, index + 2, 1, index + 2, 1)  # an end, so rules may build edits


def _shadow(ctx: CheckContext) -> CheckContext:
    """The launch with placeholder spans (one per parse: the argv texts are the same)."""
    spec = ctx.spec
    shadow = copy.copy(spec)
    shadow.argv = [Token(t.text, _shadow_span(i), t.symbolic) for i, t in enumerate(spec.argv)]
    shadow.anchor = _shadow_span(-1)
    shadow.rendering = ""
    return CheckContext(
        spec=shadow,
        profile=ctx.profile,
        how=ctx.how,
        floating=ctx.floating,
        history=ctx.history,
        parsed=ctx.parsed,
        extra=dict(ctx.extra),
    )


def _templates(rule: Any, ctx: CheckContext) -> list[_Template] | bool:
    memo = ctx.parsed.memo  # type: ignore[union-attr]
    sctx = memo.get("shadow")
    if sctx is None:
        sctx = memo["shadow"] = _shadow(ctx)
    out: list[_Template] = []
    for f in rule.check(sctx):
        edits = f.autofix.edits if f.autofix is not None else ()
        spans = [f.span, *f.related, *(e.span for e in edits)]
        if any(s.path != _SHADOW for s in spans):
            return False
        out.append(
            _Template(
                f,
                f.span.line - 2,
                tuple(s.line - 2 for s in f.related),
                tuple(e.span.line - 2 for e in edits),
            )
        )
    return out


def _span(spec: LaunchSpec, index: int) -> Span:
    if 0 <= index < len(spec.argv) and spec.argv[index].span is not None:
        return spec.argv[index].span  # type: ignore[return-value]
    return spec.anchor


def _instantiate(t: _Template, spec: LaunchSpec) -> Finding:
    f = t.finding
    return Finding(
        rule=f.rule,
        code=f.code,
        severity=f.severity,
        message=f.message,
        span=_span(spec, t.index),
        engine=f.engine,
        release=f.release,
        renderings=[spec.rendering] if spec.rendering else [],
        fix=f.fix,
        related=[_span(spec, i) for i in t.related],
        evidence=f.evidence,
        autofix=_fix(t, spec),
    )


def _fix(t: _Template, spec: LaunchSpec) -> Fix | None:
    fix = t.finding.autofix
    if fix is None:
        return None
    pairs = zip(t.edits, fix.edits, strict=True)
    edits = tuple(Edit(_span(spec, i), e.replacement, e.old) for i, e in pairs)
    return Fix(edits, fix.safety, fix.description)
