"""flag not accepted by the release's parser (unknown, removed, or too new)

The engine's own argument parser rejects the flag before anything loads
(vLLM: ``vllm: error: unrecognized arguments``, exit 2). servelint says which case it
is: a misspelling (with a did-you-mean), a flag removed in an earlier release (and
what replaced it when the release says so), or a flag that only exists from a later
release than the one pinned.

Bad (the flag was removed in vLLM 0.17.0):

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --disable-log-requests
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B
```

Fix: drop or rename the flag, or pin a release that has it.

Autofix: safe for a ``_``/``-`` spelling of a flag the release has (``--tp_size`` where
SGLang has ``--tp-size``); unsafe (``--unsafe-fixes``) to drop a flag the release removed,
when no separate value follows it. A did-you-mean guess is never applied.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from packaging.version import Version

from servelint.engines import registry
from servelint.engines.sglang import serve_diffusion
from servelint.model import Finding, Fix, FixSafety, Severity
from servelint.rules._fixes import drop_tokens, rename_token
from servelint.rules._util import (
    flag_judgeable,
    flag_name,
    normalise_flag,
    option_span,
    suggest_sorted,
    token,
)
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL101"
NAME = "flag-unknown"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.SAFE


def check(ctx: CheckContext) -> Iterator[Finding]:
    spec, prof = ctx.spec, ctx.profile
    release = prof.version
    for problem in ctx.parsed.problems:
        if problem.kind != "unrecognized" or not flag_judgeable(ctx.spec, problem.index):
            continue
        tok = token(spec, problem.index)
        if tok is None:
            continue
        span = option_span(ctx, problem.index, option=problem.option)
        text = tok.text
        where = ""
        if text == "--config" and problem.option and problem.option != text:
            # a key of the --config file the release's merger turned into this flag
            text, where = problem.option, f"key {problem.option[2:]!r} of the --config file: "
        if not text.startswith("-"):
            message, fix = _positional(ctx, problem.index, text)
            yield finding(sys.modules[__name__], ctx, span, message, fix=fix)
            continue
        if " " in text.strip():
            yield finding(sys.modules[__name__], ctx, span,
                          f'"{text}" is one argument holding a space: {prof.label} does not '
                          "split it into a flag and a value",
                          fix=f'write it as two arguments: {" ".join(text.split(None, 1))}')
            continue
        # click matches option strings exactly (TensorRT-LLM's --max_batch_size)
        name = flag_name(text) if prof.rules.get("exact_names") else normalise_flag(text)
        base = name.split(".", 1)[0] if prof.rules.get("dotted_keys") else name
        forced = _forced_diffusion(ctx)
        if forced:
            message, fix = f'unknown flag "{base}" for {prof.label}\'s {forced}', "remove the flag"
        else:
            message, fix = _explain(ctx, base, release)  # once per argv verdict
            message += _both_parsers(ctx, text)
        f = finding(sys.modules[__name__], ctx, span, where + message, fix=fix)
        f.autofix = None if where or forced else _autofix(ctx, problem.index, text)
        yield f


def _forced_diffusion(ctx: CheckContext) -> str:
    """``sglang serve --model-type diffusion``: its parser is the diffusion server's."""
    routing = ctx.profile.rules.get("serve_routing") or {}
    accepts = routing.get("diffusion_accepts")
    if not accepts or not ctx.spec.entrypoint.endswith(" serve"):
        return ""
    engine = registry.find(ctx.profile.engine)  # the engine's argv module, when it has one
    model_type = getattr(engine.argv_model() if engine else None, "serve_model_type", None)
    if model_type is None or model_type(ctx.profile, [t.text for t in ctx.spec.argv]) != "diffusion":
        return ""
    return (
        "multimodal-generation server (--model-type diffusion), which rejects flags it does "
        f"not take ({accepts.get('rejects_unknown')})"
    )


def _both_parsers(ctx: CheckContext, text: str) -> str:
    """``sglang serve`` picks its parser from the model: say when the diffusion side
    rejects the flag too (the release's own line), so it fails whatever the model is."""
    routing = ctx.profile.rules.get("serve_routing") or {}
    accepts = routing.get("diffusion_accepts")
    if not accepts or not ctx.spec.entrypoint.endswith(" serve"):
        return ""
    if serve_diffusion.may_take(routing, text):
        return ""
    return (
        "; nor does the multimodal-generation server `sglang serve` picks for a diffusion "
        f"model take it ({accepts.get('rejects_unknown')}): it fails whatever the model is"
    )


def _positional(ctx: CheckContext, index: int, text: str) -> tuple[str, str]:
    """An extra positional; after a flag that takes no value (``--enable-expert-parallel
    True``, what a template's ``str(true)`` gives) say so: the value is the positional."""
    prof = ctx.profile
    before = token(ctx.spec, index - 1) if index > 0 else None
    action = (
        prof.option_index.get(before.text)
        if before is not None and not before.symbolic and before.text.startswith("-")
        else None
    )
    if action is not None and not action.takes_value:
        return (
            f'"{before.text} {text}": {before.text} takes no value in {prof.label}, so '
            f'"{text}" is left as a positional argument the parser rejects',
            f'write "{before.text}" alone to turn it on, leave it out to keep it off',
        )
    return (
        f'unexpected positional argument "{text}" for {prof.label}: the parser takes one '
        "positional (the model)",
        "remove it, or attach it to the flag it belongs to",
    )


def _autofix(ctx: CheckContext, index: int, text: str) -> Fix | None:
    """Safe: the same flag with ``_``/``-`` swapped when the release has exactly that one.
    Unsafe: drop a flag the release removed, when no separate value token follows it."""
    prof, spec = ctx.profile, ctx.spec
    written = text.split("=", 1)[0]
    head, tail = written[:2], written[2:]
    for other in (head + tail.replace("_", "-"), head + tail.replace("-", "_")):
        if other != written and other in prof.option_index:
            return rename_token(spec, index, written, other, FixSafety.SAFE,
                                f'write "{other}" (the release spells the flag that way)')
    hist = ctx.history
    name = flag_name(text) if prof.rules.get("exact_names") else normalise_flag(text)
    if not hist or not hist.of("option", name).releases:
        return None  # never known: a typo, not a removal; a guess is no fix
    nxt = token(spec, index + 1)
    if "=" in text or nxt is None or nxt.text.startswith("-"):
        return drop_tokens(spec, [index], f'drop "{written}"')
    return None


def _explain(ctx: CheckContext, name: str, release: str) -> tuple[str, str]:
    prof, hist = ctx.profile, ctx.history
    pres = hist.of("option", name).releases if hist else ()
    if pres and release in pres and prof.data.get("stored"):
        return (f'flag "{name}" does not exist in {prof.label}, although the released '
                f"{prof.engine} {release} has it: the image holds another build",
                "drop the flag, or use an image whose build has it")
    if pres:
        first = pres[0]
        if Version(first) > Version(release):
            return (f'flag "{name}" does not exist in {prof.label}; it first appears in '
                    f"{prof.engine} {first}",
                    f"pin {prof.engine} >= {first} (an image that has it), or drop the flag")
        removed = hist.removed_after("option", name, release) if hist else None
        last = max((r for r in pres if Version(r) <= Version(release)), key=Version, default=None)
        hint = ""
        if hist and name in hist.deprecated:
            msgs = [m for m in hist.deprecated[name].values() if m]
            if msgs:
                hint = msgs[-1]
        msg = f'flag "{name}" was removed in {prof.engine} {removed or "a later release"}'
        msg += f" (last accepted in {last})" if last else ""
        msg += f"; {prof.label} rejects it"
        return msg, hint or "drop the flag (or use what replaced it)"
    guess = suggest_sorted(name, prof.long_options)
    msg = f'unknown flag "{name}" for {prof.label}'
    if guess:
        msg += f'; did you mean "{guess}"?'
    return msg, f'use "{guess}"' if guess else "remove the flag"
