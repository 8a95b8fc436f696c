"""flag works only as an abbreviation of a longer option

argparse's prefix matching makes ``--max-model 4096`` mean ``--max-model-len``. It
works until a release adds another flag with the same prefix; then the launch fails
with "ambiguous option". Write the full name.

It stays a warning, since the risk is real on every release, but the text report prints
an abbreviation repeated in one file once, with the other places on an ``also at`` line:
guides abbreviate the same flag over and over (SGLang's own docs write ``--tp`` for
``--tp-size`` in 166 of their 191 warnings), and one line per file says it as well.

Bad:

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --max-model 4096
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --max-model-len 4096
```

Fix (safe, ``--fix``): the prefix becomes the full flag; argparse already reads it as that
flag, so the launch means the same.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._fixes import rename_token
from servelint.rules._util import is_symbolic, token_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL103"
NAME = "flag-abbreviated"
SEVERITY = Severity.WARNING
SCOPE = Scope.LAUNCH
FIX = FixSafety.SAFE


def check(ctx: CheckContext) -> Iterator[Finding]:
    for opt in ctx.parsed.options:
        if not getattr(opt, "abbreviated", False) or is_symbolic(ctx.spec, opt.index):
            continue
        full = opt.canonical
        written = opt.written.split("=", 1)[0]
        f = finding(sys.modules[__name__], ctx, token_span(ctx.spec, opt.index),
                    f'"{written}" is accepted by {ctx.profile.label} only as an abbreviation of '
                    f'"{full}"; a release that adds another flag starting with it will reject it',
                    fix=f'write "{full}"')
        f.autofix = rename_token(ctx.spec, opt.index, written, full, FixSafety.SAFE, f.fix)
        yield f
