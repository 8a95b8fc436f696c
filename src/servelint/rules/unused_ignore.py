"""ignore comment that suppresses nothing

An inline `servelint: ignore[rule-id]` comment applies to findings of the named
rules on its own line or, when the comment stands alone on its line, on the next
line (never the rest of a backslash-continued command). A rule id there that matches
no finding is reported, so stale suppressions cannot hide a future problem.

Bad (`flag-unknown` does not fire because the flag is valid):

```bash bad engine=vllm==0.21.0
# servelint: ignore[flag-unknown] flag added in our fork
vllm serve Qwen/Qwen3-8B --max-model-len 8192
```

Good (the comment suppresses a finding):

```bash good engine=vllm==0.21.0
# servelint: ignore[flag-unknown] flag added in our fork
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
```

Fix: delete the comment, or the rule id that no longer matches.
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL901"
NAME = "unused-ignore"
SEVERITY = Severity.WARNING
SCOPE = Scope.FILE  # emitted by servelint.pipeline.ignores from the comments of a checked file
FIX = FixSafety.NONE
