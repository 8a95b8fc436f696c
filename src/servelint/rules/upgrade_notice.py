"""flag, value or env var that stops working in a later release

What the launch uses is valid on the pinned release but is gone in a later one: bumping
the image will break the launch. servelint names the first release without it.

Bad (``--tokenizer-mode fastokens`` exists in vLLM 0.21.0 only):

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --tokenizer-mode fastokens
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --tokenizer-mode auto
```

Fix: plan the replacement before upgrading.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import is_symbolic, normalise_flag, token_span
from servelint.rules.base import CheckContext, Scope, finding
from servelint.rules.value_late import values_to_check

CODE = "SL171"
NAME = "breaks-on-upgrade"
SEVERITY = Severity.INFO
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    spec, prof, hist = ctx.spec, ctx.profile, ctx.history
    if hist is None or ctx.extra.get("floating"):
        return
    mod = sys.modules[__name__]
    rel = prof.version
    for opt in ctx.parsed.options:
        if opt.action is None or is_symbolic(spec, opt.index) or opt.abbreviated:
            continue
        name = normalise_flag(opt.written).split(".", 1)[0]
        if name not in prof.option_index:
            continue
        gone = hist.next_release_without("option", name, rel)
        if gone:
            yield finding(mod, ctx, token_span(spec, opt.index),
                          f'flag "{name}" is gone in {prof.engine} >= {gone}',
                          fix=f"plan its replacement before moving to {prof.engine} {gone}")
    for target, value, index in values_to_check(ctx):
        entry = prof.late_for(target)
        if entry is None or value not in entry[1].get("values", []):
            continue
        gone = hist.next_release_without("late", f"{entry[0]}={value}", rel)
        if gone:
            yield finding(mod, ctx, token_span(spec, index),
                          f'{entry[0].replace("_", " ")} "{value}" is gone in {prof.engine} '
                          f">= {gone}",
                          fix=f"plan its replacement before moving to {prof.engine} {gone}")
    for env in spec.env:
        if env.name in prof.env_registry:
            gone = hist.next_release_without("env", env.name, rel)
            if gone:
                yield finding(mod, ctx, env.span or spec.anchor,
                              f"{env.name} is no longer read by {prof.engine} >= {gone}",
                              fix=f"plan its replacement before moving to {prof.engine} {gone}")
