"""engine release cannot be determined exactly (floating, custom or unknown image)

``latest`` changes under you, ``nightly`` and model-named tags (``:kimi-k3``) name no
release, and some launches pin nothing at all. servelint says which release it judged
against instead (the newest profile for ``latest``, the recipe's floor for the rest) and
caps what it finds at warning. Map such tags to a release in the config
(``[tool.servelint.images]``) to check them exactly.

Bad:

```bash bad image=vllm/vllm-openai:nightly
vllm serve Qwen/Qwen3-8B
```

Good:

```bash good image=vllm/vllm-openai:v0.27.1
vllm serve Qwen/Qwen3-8B
```

Fix: pin a released image tag, or map the tag in the config.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL142"
NAME = "release-unresolved"
SEVERITY = Severity.INFO
SCOPE = Scope.NOTES
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    for note in ctx.extra.get("notes", []):
        span = ctx.spec.image_span or ctx.spec.anchor
        yield finding(sys.modules[__name__], ctx, span, note,
                      fix="pin a released image tag, or map the tag in [tool.servelint.images]")
