"""environment variable value outside the choices the release accepts

Variables declared with a fixed set of values (vLLM's ``env_with_choices``) raise
``ValueError`` when read with any other value.

Bad:

```bash bad engine=vllm==0.27.1
VLLM_KV_CACHE_LAYOUT=NCHW vllm serve Qwen/Qwen3-8B
```

Good:

```bash good engine=vllm==0.27.1
VLLM_KV_CACHE_LAYOUT=HND vllm serve Qwen/Qwen3-8B
```

Fix: use one of the listed values.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import short_list, value_in
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL122"
NAME = "env-value-invalid"
SEVERITY = Severity.ERROR
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof = ctx.profile
    for env in ctx.spec.env:
        entry = prof.env_registry.get(env.name)
        if not entry or env.symbolic or not entry.get("choices"):
            continue
        choices = [str(c) for c in entry["choices"]]
        sensitive = entry.get("case_sensitive", True)
        # list-typed variables take comma-separated values, each from the choices
        items = [v.strip() for v in env.value.split(",") if v.strip()] \
            if entry.get("type") in {"list", "set"} else [env.value]
        if all(value_in(v, choices, sensitive) for v in items):
            continue
        yield finding(sys.modules[__name__], ctx, env.span or ctx.spec.anchor,
                      f'{env.name}="{env.value}" is not one of the values {prof.label} accepts '
                      f"({short_list(choices)}): reading it raises ValueError",
                      fix=f"use one of {short_list(choices)}", evidence=entry.get("source", ""))
