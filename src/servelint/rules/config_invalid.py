"""bad key or value in a JSON or dotted config argument

Options such as ``--speculative-config``, ``--compilation-config``,
``--attention-config.<field>`` take a JSON object (or dotted keys folded into one)
that the engine validates against its config class: an unknown key or a value of the
wrong kind stops the launch, at parse time for options the parser validates itself and
when the engine config is built for the others (the message says which).

Bad:

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --attention-config.nope_backend FLASH_ATTN
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --attention-config.backend FLASH_ATTN
```

Fix: use a field the release's config class has.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

from servelint.engines import registry
from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import is_symbolic, option_span
from servelint.rules.base import CheckContext, Scope, finding
from servelint.rules.value_invalid import KINDS, is_json_option

CODE = "SL113"
NAME = "config-invalid"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.NONE


def _dotted_payload(profile, config_path: str, value: str) -> str:
    """The JSON the engine folds ``--x-config.a.b VALUE`` into (value parsed as JSON if it is),
    for an engine whose argv model does not say (vLLM's ``dotted_payload`` does)."""
    try:
        obj = json.loads(value)
    except ValueError:
        obj = value
    for key in reversed(config_path.split(".")[1:]):
        obj = {key: obj}
    return json.dumps(obj)


def _option_file(mod, ctx: CheckContext, argv_mod) -> Iterator[Finding]:
    """Keys and values of the option file the launch passes (TensorRT-LLM ``--config``)."""
    problems_of = getattr(argv_mod, "option_file_problems", None)
    if problems_of is None or ctx.spec.option_file is None:
        return
    for problem in problems_of(ctx.profile, ctx.spec, ctx.parsed):
        if problem.unknown_name and ctx.extra.get("judges_newer"):
            continue  # an older profile judging a newer release (servelint.releases.release_range)
        yield finding(mod, ctx, problem.span or ctx.spec.anchor, problem.message,
                      fix="use a key and value the release's LLM API arguments accept",
                      severity=Severity.WARNING if problem.severity == "warning" else None,
                      evidence=problem.evidence)


def _numeric_bounds(mod, ctx: CheckContext, argv_mod) -> Iterator[Finding]:
    """A number outside the Field(ge=/gt=/...) bounds of the config field the option fills
    (vLLM: pydantic refuses it when the engine config is built)."""
    bound_of = getattr(argv_mod, "option_bound_problem", None)
    if bound_of is None:
        return

    def first_value(profile, action, typed):
        return bound_of(profile, action, typed[0])

    yield from _typed_problems(mod, ctx, first_value, "use a value inside the field's bounds")


def _enum_values(mod, ctx: CheckContext, argv_mod) -> Iterator[Finding]:
    """A text the Enum field the option fills refuses, or a list element its ``list[X]``
    refuses (vLLM: pydantic, when the engine config is built)."""
    value_of = getattr(argv_mod, "option_value_problem", None)
    if value_of is not None:
        yield from _typed_problems(mod, ctx, value_of, "use one of the field's values")


def _typed_problems(mod, ctx: CheckContext, problem_of, fix: str) -> Iterator[Finding]:
    """``problem_of(profile, action, typed values)`` for every option with a literal value."""
    for opt in ctx.parsed.options:
        typed = getattr(opt, "typed", None)
        vi = opt.value_index if opt.value_index is not None else opt.index
        if opt.action is None or not typed or is_symbolic(ctx.spec, vi):
            continue
        problem = problem_of(ctx.profile, opt.action, typed)
        if problem is not None:
            yield finding(mod, ctx, option_span(ctx, vi, option=opt.written, value=True),
                          f"{opt.action.primary}: {problem.message} ({ctx.profile.label} "
                          f"fails at {problem.stage.replace('_', ' ')})",
                          fix=fix)


def check(ctx: CheckContext) -> Iterator[Finding]:
    mod = sys.modules[__name__]
    prof = ctx.profile
    for problem in ctx.parsed.problems:  # refused by the parser itself
        if problem.kind in KINDS and is_json_option(prof, problem.option) and \
                not is_symbolic(ctx.spec, problem.index):
            span = option_span(ctx, problem.index, option=problem.option, value=True)
            yield finding(mod, ctx, span,
                          f"{prof.label} rejects this at parse time: {problem.message}",
                          fix="use a key and value the config class accepts")
    engine = registry.find(prof.engine)
    argv_mod = engine.argv_model() if engine else None
    yield from _option_file(mod, ctx, argv_mod)
    yield from _numeric_bounds(mod, ctx, argv_mod)
    yield from _enum_values(mod, ctx, argv_mod)
    problems_of = getattr(argv_mod, "json_config_problems", None)
    if problems_of is None:
        return
    shadowed_of = getattr(argv_mod, "shadowed_json_values", None)
    shadowed = shadowed_of(list(ctx.parsed.options)) if shadowed_of else set()
    for i, opt in enumerate(ctx.parsed.options):
        act = opt.action
        if act is None or not isinstance(opt.value, str) or i in shadowed:
            continue  # (a value a later one replaces is never validated)
        if not (opt.config_path or act.json_dataclass or act.raw.get("json_config")
                or act.raw.get("field_of") and act.raw.get("type") == "json"):
            continue
        vi = opt.value_index if opt.value_index is not None else opt.index
        if is_symbolic(ctx.spec, vi):
            continue
        text = (getattr(argv_mod, "dotted_payload", None) or _dotted_payload)(
            prof, opt.config_path, opt.value) if opt.config_path else opt.value
        found = None if opt.config_path else getattr(opt, "json_problems", None)
        for problem in problems_of(prof, act, text) if found is None else found:
            if prof.late_for(problem.path):
                continue  # a registered value set: value-rejected-later says it better
            stage = problem.stage.replace("_", " ")
            span = option_span(ctx, opt.index if opt.config_path else vi,
                               option=opt.written, value=True)
            yield finding(mod, ctx, span,
                          f"{act.primary}: {problem.message} ({prof.label} fails at {stage})",
                          fix="use a key and value the config class accepts")
