"""value the parser lets through but the engine rejects later

Some options take free text at parse time (``Literal[...] | str`` fields, registry-
backed names such as tokenizer modes, quantization methods, attention backends,
tool-call and reasoning parsers, speculative methods) and are only checked when the
engine builds its config, its tokenizer or its API server: the container starts, then
fails. servelint checks the value against the set the release registers and names the
stage at which the engine fails. The sets come from the release's code: registries,
enums, ``Literal`` aliases, and membership checks (a config validator's ``if v not in
COLL: raise``, a lookup such as ``get_config_parser``'s). Where the release lets plugins
add values at run time (``register_kv_cache_dtype``), the finding is a warning.

Bad (vLLM 0.22.0 has no ``fastokens`` tokenizer mode; it was replaced by an env var):

```bash bad engine=vllm==0.22.0
vllm serve Qwen/Qwen3-8B --tokenizer-mode fastokens
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --tokenizer-mode fastokens
```

Fix: use a registered value (did-you-mean when one is close), or pin a release that has it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from packaging.version import Version

from servelint.engines.vllm.guarded_lookup_checks import lookup_failures
from servelint.engines.vllm.verdict import deprecation_refuses, means_unset, read_only_if
from servelint.model import Finding, FixSafety, Severity
from servelint.profiles import Profile
from servelint.rules._util import (
    argv_fact,
    is_symbolic,
    normalise_flag,
    option_dests,
    option_span,
    short_list,
    suggest,
    token,
    token_span,
    value_in,
)
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL112"
NAME = "value-rejected-later"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.NONE


def values_to_check(ctx: CheckContext) -> list[tuple[str, str, int]]:
    """(target, value, argv index) for every option value governed by a late value set;
    computed once per parse (it depends only on the argv), shared by the rules that read it."""
    return argv_fact(ctx.parsed, "values_to_check", lambda: list(_values_to_check(ctx)))


def _values_to_check(ctx: CheckContext):
    for opt in ctx.parsed.options:
        act = opt.action
        vi = opt.value_index if opt.value_index is not None else opt.index
        if act is None or opt.value is None or is_symbolic(ctx.spec, vi):
            continue
        if opt.config_path:  # dotted: --attention-config.backend X
            values = opt.value if isinstance(opt.value, list) else [opt.value]
            for v in values:
                yield opt.config_path, str(v), vi
            continue
        raw = opt.value
        if act.json_dataclass or act.raw.get("type") in {"json", "json_dataclass"}:
            try:
                obj = json.loads(raw) if isinstance(raw, str) else None
            except ValueError:
                obj = None
            if isinstance(obj, dict):
                for key, v in obj.items():
                    if isinstance(v, str):
                        yield f"{act.dest}.{key}", v, vi
            continue
        typed = getattr(opt, "typed", None)  # after the action's type= (vLLM's parser)
        values = typed if typed is not None else raw if isinstance(raw, list) else [raw]
        for v in values:
            if v is not None:
                yield act.dest, str(v), vi


def _plugin_given(ctx: CheckContext, plugin_dests: list[str], dests: set[str]) -> bool:
    """A plugin option the release names (``extended_by``) is present, or a flag the parser
    refused is a near-miss of one: the plugin may register more names, so they cannot be
    judged."""
    if any(d in dests for d in plugin_dests):
        return True
    spellings = [o for d in plugin_dests if d in ctx.profile.by_dest
                 for o in ctx.profile.by_dest[d].option_strings]
    for problem in ctx.parsed.problems:
        tok = token(ctx.spec, problem.index)
        if problem.kind == "unrecognized" and tok is not None and spellings and \
                suggest(normalise_flag(tok.text), spellings):
            return True
    return False


def rejected(prof: Profile, target: str, value: str, dests: set[str],
             plugin_given: Callable[[list[str]], bool]
             ) -> tuple[str, dict[str, Any], str] | None:
    """(set name, entry, why) of the late value set that rejects ``value`` for ``target`` in
    ``prof``'s release, given the dests the launch sets; ``why`` is "unknown" (not in the
    set) or "deprecated" (in the set's deprecated list, and the option that lets deprecated
    values through is not set). None when it is accepted or not judged."""
    late = prof.late_for(target)
    if late is None:
        return None
    # run served from the cache imports the rules for their catalogue, not their checks)

    set_name, entry = late
    if means_unset(prof, target, value):
        return None  # the release's own default or a sentinel its validator maps to unset
    if entry.get("class_paths") and "." in value:
        return None  # a class path the engine imports (module.Class): not judged
    if entry.get("extended_by") and plugin_given(entry["extended_by"]):
        return None  # names from a plugin file cannot be checked statically
    if any(dest not in dests for dest in entry.get("only_with", [])):
        return None  # the engine checks this value only together with another option
    allowed = entry.get("values", [])
    if not allowed:
        return None
    if not value_in(value, allowed, entry.get("case_sensitive", True)):
        return set_name, entry, "unknown"
    if deprecation_refuses(entry, value, dests.__contains__):
        return set_name, entry, "deprecated"
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof = ctx.profile
    dests = option_dests(ctx)

    def plugin_given(plugin_dests: list[str]) -> bool:
        return _plugin_given(ctx, plugin_dests, dests)

    for target, value, index in values_to_check(ctx):
        late = rejected(prof, target, value, dests, plugin_given)
        if late is None:
            continue
        dest = target.split(".", 1)[0]
        set_name, entry, why = late
        allowed = entry.get("values", [])
        stage = entry.get("target_stages", {}).get(target) or entry.get("stage", "")
        if why == "deprecated":
            dep = entry["deprecated"]
            flag = "--" + dep["unless"].replace("_", "-")
            yield finding(sys.modules[__name__], ctx, option_span(ctx, index, dest=dest),
                          f'{set_name.replace("_", " ")} "{value}" is deprecated in '
                          f"{prof.label}: the engine refuses it at {stage.replace('_', ' ')} "
                          f"unless {flag} is set",
                          fix=f"add {flag}, or move to a method that is not deprecated",
                          evidence=dep.get("check", ""))
            continue
        where = f'"{value}" is not a registered {set_name.replace("_", " ")} in {prof.label}'
        msg = where + (f": the engine fails at {stage.replace('_', ' ')}" if stage else "")
        if entry.get("message"):
            msg += f" ({entry['message']})"
        if read_only_if(entry, target):
            msg += f"; {read_only_if(entry, target)}"
        hist = ctx.history
        if hist:
            pres = hist.of("late", f"{set_name}={value}").releases
            if pres:
                first, last = pres[0], pres[-1]
                if Version(first) > Version(prof.version):
                    msg += f"; it first appears in {prof.engine} {first}"
                elif Version(last) < Version(prof.version):
                    msg += f"; it was last accepted in {prof.engine} {last}"
        guess = suggest(value, allowed, cutoff=0.75)
        fix = f'did you mean "{guess}"?' if guess else f"valid values: {short_list(allowed)}"
        severity = None
        if entry.get("registered_by"):  # a plugin in the image may have registered the value
            msg += f"; plugins can register more ({entry['registered_by']})"
            severity = Severity.WARNING
        span = option_span(ctx, index, dest=dest, value=True)
        yield finding(sys.modules[__name__], ctx, span, msg, fix=fix,
                      evidence=entry.get("source", ""), severity=severity)
    yield from _guarded_lookups(ctx)


def _guarded_lookups(ctx: CheckContext) -> Iterator[Finding]:
    """Values a config object looks up under a guard it meets (``--reasoning-config '{}'``
    on vLLM 0.21.0: the default ``""`` is looked up): engines/vllm/guarded_lookup_checks.py."""
    if not any(e.get("guarded") for e in ctx.profile.late_values.values()):
        return

    def unknown(opt: Any) -> bool:
        vi = opt.value_index if opt.value_index is not None else opt.index
        return is_symbolic(ctx.spec, vi)

    options = list(ctx.parsed.options)
    for failure in lookup_failures(ctx.profile, options, unknown):
        dest = failure.target.split(".")[0]
        index = next((o.index for o in reversed(options)
                      if o.action is not None and o.action.dest == dest), None)
        allowed = ctx.profile.late_values.get(failure.set_name, {}).get("values", [])
        guess = suggest(failure.value, allowed, cutoff=0.75) if failure.value else None
        fix = f'did you mean "{guess}"?' if guess else f"set one of: {short_list(allowed)}"
        yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, index), failure.message,
                      fix=fix, evidence=failure.source)
