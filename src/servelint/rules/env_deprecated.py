"""environment variable deprecated in the release

The release still reads the variable but warns that it is deprecated, and a later
release drops it. servelint gives the replacement the release names.

Bad:

```bash bad engine=vllm==0.23.0
VLLM_USE_FLASHINFER_MOE_FP8=1 vllm serve Qwen/Qwen3-30B-A3B-FP8
```

Good:

```bash good engine=vllm==0.23.0
vllm serve Qwen/Qwen3-30B-A3B-FP8
```

Fix: move to the replacement.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL123"
NAME = "env-deprecated"
SEVERITY = Severity.WARNING
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof = ctx.profile
    for env in ctx.spec.env:
        entry = prof.env_registry.get(env.name)
        if not entry or not entry.get("deprecated"):
            continue
        gone = ctx.history.next_release_without("env", env.name, prof.version) \
            if ctx.history else None
        msg = f"{env.name} is deprecated in {prof.label}"
        msg += f" and gone in {prof.engine} {gone}" if gone else ""
        note = str(entry.get("deprecated"))
        yield finding(sys.modules[__name__], ctx, env.span or ctx.spec.anchor, msg,
                      fix=entry.get("replacement") or (note if note not in {"True", "true"} else
                                                       "drop it or use its replacement"),
                      evidence=entry.get("source", ""))
