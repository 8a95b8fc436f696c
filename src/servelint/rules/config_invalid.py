"""bad key or value in a JSON or dotted config argument

Options such as ``--speculative-config``, ``--compilation-config``,
``--attention-config.<field>`` take a JSON object (or dotted keys folded into one)
that the engine validates against its config class: an unknown key or a value of the
wrong kind stops the launch.

Bad:

```bash bad engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --attention-config.nope_backend FLASH_ATTN
```

Good:

```bash good engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --attention-config.backend FLASH_ATTN
```

Fix: use a field the release's config class has.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator

from servelint.model import Finding, Severity
from servelint.rules._util import is_symbolic, token_span
from servelint.rules.base import CheckContext, finding

CODE = "SL113"
NAME = "config-invalid"
SEVERITY = Severity.ERROR
FIX_SAFE = False


def check(ctx: CheckContext) -> Iterator[Finding]:
    try:
        argv_mod = importlib.import_module(f"servelint.engine.{ctx.profile.engine}_argv")
    except ModuleNotFoundError:
        return
    checker = getattr(argv_mod, "check_json_config", None)
    if checker is None:
        return
    for opt in ctx.parsed.options:
        act = opt.action
        if act is None or not (act.json_dataclass or opt.config_path):
            continue
        vi = opt.value_index if opt.value_index is not None else opt.index
        if opt.value is None or is_symbolic(ctx.spec, vi):
            continue
        text = opt.value if isinstance(opt.value, str) else None
        if text is None:
            continue
        for problem in checker(ctx.profile, act, text) or []:
            message = getattr(problem, "message", None) or str(problem)
            stage = getattr(problem, "stage", "")
            msg = f"{act.primary}: {message}"
            if stage:
                msg += f" ({ctx.profile.label} fails at {stage.replace('_', ' ')})"
            index = opt.index if opt.config_path else vi
            yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, index), msg,
                          fix="use a key and value the config class accepts")
