"""flag is deprecated in the release (still accepted; will be removed)

The release marks the flag deprecated: it logs a warning and goes on. servelint names
the first later release that no longer accepts it, so an upgrade does not surprise you.

Bad:

```bash bad engine=vllm==0.12.0
vllm serve Qwen/Qwen3-8B --disable-log-requests
```

Good:

```bash good engine=vllm==0.12.0
vllm serve Qwen/Qwen3-8B
```

Fix: use what replaced it (the message says so when the release states it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import token_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL104"
NAME = "flag-deprecated"
SEVERITY = Severity.WARNING
SCOPE = Scope.ARGV
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    seen = set()
    for opt in ctx.parsed.options:
        act = opt.action
        if act is None or not act.deprecated or opt.index in seen:
            continue
        seen.add(opt.index)
        name = opt.written.split("=", 1)[0]
        gone = ctx.history.next_release_without("option", name, ctx.profile.version) \
            if ctx.history else None
        msg = f'flag "{name}" is deprecated in {ctx.profile.label}'
        msg += f" and removed in {ctx.profile.engine} {gone}" if gone else ""
        hint = act.raw.get("deprecated_message") or ""
        yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, opt.index), msg,
                      fix=hint or "drop the flag or use its replacement")
