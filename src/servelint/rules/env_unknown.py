"""environment variable the release does not know (unknown, removed or too new)

vLLM reads only the ``VLLM_*`` variables it registers. From 0.17 it logs "Unknown vLLM
environment variable detected" and goes on (a hard error with
``--fail-on-environ-validation``); before 0.17 it ignores them without a word. SGLang
ignores unknown ``SGLANG_*`` variables silently. Either way the setting you wrote has
no effect. servelint says whether the variable was removed (and what replaced it, when
the release says so) or only exists in a later release.

Bad (``VLLM_USE_FASTOKENS`` first appears in vLLM 0.22.0):

```bash bad engine=vllm==0.21.0
VLLM_USE_FASTOKENS=1 vllm serve Qwen/Qwen3-8B
```

Good:

```bash good engine=vllm==0.21.0
VLLM_USE_DEEP_GEMM=1 vllm serve Qwen/Qwen3-8B
```

Fix: drop it, or use what replaced it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from packaging.version import Version

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import suggest
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL121"
NAME = "env-unknown"
SEVERITY = Severity.WARNING
MAY_ESCALATE = True  # an error when the launch sets --fail-on-environ-validation
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE

PREFIXES = {"vllm": ("VLLM_",), "sglang": ("SGLANG_", "SGL_")}


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof, spec = ctx.profile, ctx.spec
    # an engine without a registry names the prefixes of its variables in its profile
    prefixes = PREFIXES.get(prof.engine) or tuple(prof.data.get("env", {}).get("prefixes", ()))
    strict = any(t.text == "--fail-on-environ-validation" for t in spec.argv)
    if ctx.extra.get("custom_image") and prof.data.get("env", {}).get("reads") is not None:
        return  # read-based facts say nothing of the code a custom build adds
    for env in spec.env:
        name = env.name
        if (
            not name.startswith(prefixes)
            or name in prof.env_registry
            or name in prof.env_read_unregistered
        ):
            continue
        if (
            prof.engine == "sglang"
            and name.startswith("SGL_")
            and "SGLANG_" + name[4:] in prof.env_registry
        ):
            continue  # SGLang rewrites SGL_* to SGLANG_* (with a warning)
        effect = _effect(prof)
        msg, fix = _explain(ctx, name, effect)
        sev = (
            Severity.ERROR
            if strict and prof.engine == "vllm" and prof.env_unknown_warning
            else None
        )
        partial = prof.data.get("env", {}).get("partial")
        if partial:  # read from part of the release only: a hint, never a warning
            msg += f" (the release's env facts are partial: {partial})"
            sev = Severity.INFO
        yield finding(
            sys.modules[__name__], ctx, env.span or spec.anchor, msg, fix=fix, severity=sev
        )


def _effect(prof) -> str:
    if prof.data.get("env", {}).get("reads") is not None:
        return "no code of the release reads it"
    if prof.engine == "vllm":
        return (
            "it logs an unknown-variable warning and ignores it"
            if prof.env_unknown_warning
            else "it ignores it without a warning"
        )
    return "it ignores it silently"


def _explain(ctx: CheckContext, name: str, effect: str) -> tuple[str, str]:
    prof, hist = ctx.profile, ctx.history
    hint = prof.env_removed_hints.get(name, "")
    pres = hist.of("env", name).releases if hist else ()
    if pres:
        first, last = pres[0], pres[-1]
        if Version(first) > Version(prof.version):
            return (
                f"{name} is not registered in {prof.label} (it first appears in {first}): {effect}",
                f"pin {prof.engine} >= {first}, or drop it",
            )
        if Version(last) < Version(prof.version):
            return (
                f"{name} was removed after {prof.engine} {last}: {prof.label} no longer reads "
                f"it; {effect}",
                hint or "drop it (or use what replaced it)",
            )
    guess = suggest(
        name, list(prof.env_registry) or sorted(prof.env_read_unregistered), cutoff=0.85
    )
    msg = f"{name} is not a {prof.engine} environment variable in {prof.label}: {effect}"
    if guess:
        msg += f'; did you mean "{guess}"?'
    return msg, hint or (f"use {guess}" if guess else "drop it")
