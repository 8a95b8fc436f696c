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

Autofix: safe to rename the variable when the release forwards the old name to the new one
(SGLang's ``deprecated_name=`` aliases) without converting the value; unsafe for another
replacement variable the release reads. A replacement that is a flag is not applied.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from servelint.model import Finding, Fix, FixSafety, Severity
from servelint.rules._fixes import rename_env
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL123"
NAME = "env-deprecated"
SEVERITY = Severity.WARNING
SCOPE = Scope.LAUNCH
FIX = FixSafety.SAFE


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
        f = finding(sys.modules[__name__], ctx, env.span or ctx.spec.anchor, msg,
                    fix=entry.get("replacement") or (note if note not in {"True", "true"} else
                                                     "drop it or use its replacement"),
                    evidence=entry.get("source", ""))
        f.autofix = _autofix(prof, env, entry)
        yield f


def _autofix(prof, env, entry: dict) -> Fix | None:
    """Safe: the name the release forwards the old one to (``alias_of``: the engine reads
    the old value as the new variable), unless the release converts the value. Unsafe: a
    replacement that is another variable the release reads, without that proof."""
    new = entry.get("replacement") or ""
    if not _ENV_NAME.fullmatch(new) or new not in prof.env_registry:
        return None
    converts = "value conversion" in str(entry.get("deprecated"))
    safe = entry.get("alias_of") == new and not converts
    return rename_env(env, new, FixSafety.SAFE if safe else FixSafety.UNSAFE,
                      f"rename {env.name} to {new}")


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
