"""values that a config validator of the release refuses together

Each option is fine on its own, but a validator of the config class the options fill
(``__post_init__``, a pydantic model or field validator) raises for the combination:
``--numa-bind-nodes`` without ``--numa-bind``, a KV connector without a KV role, a
profiler directory for a profiler that is not set. The profile records each such
``if …: raise`` / ``assert`` whose condition the argv alone decides (with its file and
line); this rule evaluates it over the launch's values and the release's defaults. A
condition that reads anything the argv does not fix (the model, the platform, a shell
variable) is never reported as an error. A field the validators assign before the check
counts as the launch's value only where the guards of every such assignment are false. A
config class built from a plain JSON option's dict (``--speculative-config``) is a warning
when the engine may replace that dict after reading the model's config. A check the
validator makes after handing itself to code the profile does not read (a model or
platform config hook) is a warning that names those hooks and the fields it reads: no
code of the release writes them by name, but a hook may still set one through a
``setattr`` with a computed name (the KV connector check of ``--kv-transfer-config {}``).

A condition ``LAUNCH and MODEL`` whose MODEL part reads only the model's own config (a
multimodal-only option on a text model: ``not model_config.is_multimodal_model and
self.default_mm_loras``) is a warning when the launch makes LAUNCH true: the engine refuses
it for every model where MODEL holds, and the finding prints MODEL as the engine tests it.

Bad (vLLM 0.21.0: ``ParallelConfig`` requires ``numa_bind=True`` for NUMA nodes):

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --numa-bind-nodes 0
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --numa-bind --numa-bind-nodes 0
```

Fix: set the options the message names together, or drop the one that needs them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from servelint.engines.vllm import validators
from servelint.model import Finding, FixSafety, Severity, Span
from servelint.pipeline.argv_memo import entry_of
from servelint.rules._util import is_symbolic, token_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL114"
NAME = "validator-rejects"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.NONE


def _value_index(opt: Any) -> int:
    return opt.value_index if opt.value_index is not None else opt.index


def _option_for(options: list[Any], names: tuple[str, ...]) -> Any:
    """The last option that sets one of ``names`` (a dest, or ``dest.field…`` of a JSON
    config option), in the order the failing test reads them."""
    for name in names:
        dest, _, path = name.partition(".")
        found = None
        for opt in options:
            act = opt.action
            if act is None or act.dest != dest:
                continue
            if (
                not path
                or not opt.config_path
                or opt.config_path == name
                or opt.config_path.startswith(name + ".")
            ):
                found = opt
        if found is not None:
            return found
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof = ctx.profile
    if prof is None or not prof.data.get("conditions"):
        return
    options = list(ctx.parsed.options)
    values = {_value_index(o) for o in options}
    if any(tok.symbolic and i not in values for i, tok in enumerate(ctx.spec.argv)):
        return  # a shell word that may expand to any option: no combination is decided

    def unknown(opt: Any) -> bool:
        return is_symbolic(ctx.spec, _value_index(opt))


    entry = entry_of(prof.engine, ctx.spec.entrypoint)  # a part of the argv memo's key
    for failure in validators.failures(prof, options, unknown, entry):
        opt = _option_for(options, failure.fields)
        span = token_span(ctx.spec, opt.index) if opt is not None else ctx.spec.anchor
        stage = failure.stage.replace("_", " ")
        if failure.model:
            yield _model_finding(ctx, span, failure)
            continue
        # model-dependent (only_if): a warning that names the condition, never an error
        caveat = f"; {failure.only_if}" if failure.only_if else ""
        if failure.guarded:
            caveat = ", and no earlier statement of the validators changes it here" + caveat
        yield finding(
            sys.modules[__name__],
            ctx,
            span,
            f"{prof.label} refuses this combination at {stage}: {failure.message} "
            f"({failure.cls}, {failure.source}, when `{failure.test}`){caveat}",
            fix="set the options the message names together, or drop the one that needs them",
            severity=Severity.WARNING if failure.only_if else None,
            evidence=failure.source,
        )


# a condition longer than this is named by its source line alone (an inlined helper can
# spell out to hundreds of characters)
_SHOWN_CHARS = 160


def _model_finding(ctx: CheckContext, span: Span, failure: validators.ConditionFailure) -> Finding:
    """A model check: a warning naming the models the engine refuses the launch for."""
    label = ctx.profile.label if ctx.profile is not None else ""
    caveat = ""
    if failure.assumes:  # past a model or platform config hook the builder does not read
        caveat = (
            f", unless the code the config is handed to before it ({', '.join(failure.assumes)})"
            " changes what the test reads"
        )
    stage = failure.stage.replace("_", " ")
    models = (
        f"for every model where `{failure.model}`"
        if len(failure.model) <= _SHOWN_CHARS
        else "for the models a condition on the model's config holds for"
    )
    when = f", when `{failure.test}`" if len(failure.test) <= _SHOWN_CHARS else ""
    return finding(
        sys.modules[__name__],
        ctx,
        span,
        f"{label} refuses this at {stage} {models}: {failure.message} ({failure.cls}, "
        f"{failure.source}{when}){caveat}",
        fix="keep it only for models the condition does not hold for",
        evidence=failure.source,
        severity=Severity.WARNING,
    )
