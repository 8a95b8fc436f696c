"""value refused by the parser (invalid choice, wrong type, missing value)

The release's parser checks these values itself (``invalid choice``, ``invalid int
value``, ``expected one argument``) and exits before anything loads.

Bad:

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp9
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8
```

Fix: use one of the values the message lists.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import is_symbolic, option_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL111"
NAME = "value-invalid"
SEVERITY = Severity.ERROR
SCOPE = Scope.ARGV
FIX = FixSafety.NONE

KINDS = {"invalid-choice", "bad-value", "missing-value", "other"}


def is_json_option(profile, option: str) -> bool:
    act = profile.option_index.get(option) if option else None
    return bool(act and (act.json_dataclass or act.raw.get("json_config")
                         or act.raw.get("type") in {"json", "json_dataclass"}))


def check(ctx: CheckContext) -> Iterator[Finding]:
    for problem in ctx.parsed.problems:
        if problem.kind not in KINDS or is_symbolic(ctx.spec, problem.index):
            continue
        if is_json_option(ctx.profile, problem.option):
            continue  # reported by config-invalid
        span = option_span(ctx, problem.index, option=problem.option, value=True)
        yield finding(sys.modules[__name__], ctx, span,
                      f"{ctx.profile.label} rejects this at parse time: {problem.message}",
                      fix="use a value the parser accepts")
