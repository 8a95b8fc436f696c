"""ignore comment naming a rule that does not exist

Each id inside `servelint: ignore[...]` must be a rule name (`flag-unknown`) or code
(`SL101`); `servelint explain` lists them. A misspelt id suppresses nothing. A
comment without brackets (`# servelint: ignore`) is reported too: servelint has no
blanket ignore.

Bad:

```bash bad engine=vllm==0.21.0
# servelint: ignore[flag-unkown] typo in the rule name
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
```

Good:

```bash good engine=vllm==0.21.0
# servelint: ignore[flag-unknown] flag added in our fork
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
```

Fix: spell the rule id as listed by `servelint explain`.
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL902"
NAME = "unknown-rule-in-ignore"
SEVERITY = Severity.WARNING
SCOPE = Scope.FILE  # emitted by servelint.pipeline.ignores from the comments of a checked file
FIX = FixSafety.NONE
