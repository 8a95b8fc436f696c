"""Env names a guide gives outside its launches: an ``export VLLM_…`` in a block after the
last launch, a note or a table of tuning knobs naming ``SGLANG_…`` in inline code. A reader
who follows the guide sets them for the engine the guide installs, so the env-unknown rule
judges their names against that release too (``context["env_mentions"]``), even though no
launch of the same block carries them. Only the name is judged: a mention sets no value for
other rules (a table row documenting an opt-in knob is not the launch turning it on).

Each mention goes to the nearest launch of each engine in the document (the last one before
it, else the first after it); the rule keeps the names that carry that engine's prefixes.
"""

from __future__ import annotations

import json
import re

from servelint.model import EnvVar, LaunchSpec, Span

_INLINE = re.compile(r"`([^`\n]+)`")
_NAME = re.compile(r"(?<![\w$])([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?![\w*])")
KEY = "env_mentions"


def inline_names(lines: list[str], first: int, span_at) -> list[EnvVar]:  # noqa: ANN001
    """Upper-case names with an underscore in the inline code of prose ``lines`` (document
    line ``first`` on); ``span_at(line, column, end)`` maps document coordinates."""
    out: list[EnvVar] = []
    for i, line in enumerate(lines):
        if "`" not in line or "_" not in line:
            continue
        for code in _INLINE.finditer(line):
            for m in _NAME.finditer(code.group(1)):
                start = code.start(1) + m.start(1) + 1
                end = start + len(m.group(1))
                out.append(EnvVar(m.group(1), "", span_at(first + i, start, end)))
    return out


def attach(launches: list[LaunchSpec], mentions: list[EnvVar]) -> None:
    """Each mention onto the nearest launch of each engine (see the module docstring),
    unless that launch sets the name itself."""
    by_engine: dict[str, list[LaunchSpec]] = {}
    for spec in launches:
        by_engine.setdefault(spec.engine, []).append(spec)
    set_at = {e.span for spec in launches for e in spec.env if e.span is not None}
    for specs in by_engine.values():
        given: dict[int, list[list]] = {}
        for env in mentions:
            if env.span is None or env.span in set_at:
                continue  # (an export a later launch runs with: judged there)
            spec = _nearest(specs, env.span)
            if spec is None or any(e.name == env.name for e in spec.env):
                continue
            s = env.span
            given.setdefault(id(spec), []).append(
                [env.name, s.path, s.line, s.column, s.end_line, s.end_column]
            )
        for spec in specs:
            if id(spec) in given:
                spec.context[KEY] = json.dumps(given[id(spec)])


def _nearest(specs: list[LaunchSpec], at: Span) -> LaunchSpec | None:
    where = (at.line, at.column)
    before = [s for s in specs if (s.anchor.line, s.anchor.column) < where]
    if before:
        return before[-1]
    return specs[0] if specs else None


def mentions_of(spec: LaunchSpec) -> list[EnvVar]:
    """The mentions attached to ``spec`` (for the env-unknown rule)."""
    raw = spec.context.get(KEY)
    if not raw:
        return []
    return [EnvVar(name, "", Span(path, *rest)) for name, path, *rest in json.loads(raw)]
