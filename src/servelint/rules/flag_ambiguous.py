"""flag prefix matches several options of the release (argparse "ambiguous option")

argparse accepts a unique prefix of a flag, and refuses a prefix shared by several
flags. A prefix that was unique on one release becomes ambiguous when a later release
adds a flag with the same start.

Bad:

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --max 4096
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --max-model-len 4096
```

Fix: spell the flag out in full.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import flag_judgeable, token_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL102"
NAME = "flag-ambiguous"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.NONE


def check(ctx: CheckContext) -> Iterator[Finding]:
    for problem in ctx.parsed.problems:
        if problem.kind != "ambiguous" or not flag_judgeable(ctx.spec, problem.index):
            continue
        yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, problem.index),
                      f"{problem.message} ({ctx.profile.label} rejects it)",
                      fix="spell the flag out in full")
