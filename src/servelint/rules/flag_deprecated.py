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

Autofix: safe to write the replacement the release's message names when argparse stores
both flags in the same dest with the same arity; unsafe for another named replacement, or
to drop the flag and its values when the message names none.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from servelint.model import Finding, Fix, FixSafety, Severity
from servelint.rules._fixes import drop_tokens, option_tokens, rename_token
from servelint.rules._util import option_span
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL104"
NAME = "flag-deprecated"
SEVERITY = Severity.WARNING
SCOPE = Scope.ARGV
FIX = FixSafety.SAFE


def check(ctx: CheckContext) -> Iterator[Finding]:
    seen = set()
    for opt in ctx.parsed.options:
        act = opt.action
        name = opt.written.split("=", 1)[0]
        # (the keys of an SGLang --config file all have the --config flag's index)
        if act is None or not act.deprecated or (opt.index, name) in seen:
            continue
        seen.add((opt.index, name))
        gone = ctx.history.next_release_without("option", name, ctx.profile.version) \
            if ctx.history else None
        msg = f'flag "{name}" is deprecated in {ctx.profile.label}'
        msg += f" and removed in {ctx.profile.engine} {gone}" if gone else ""
        hint = act.raw.get("deprecated_message") or ""
        f = finding(sys.modules[__name__], ctx, option_span(ctx, opt.index, option=name), msg,
                    fix=hint or "drop the flag or use its replacement")
        f.autofix = _autofix(ctx, opt, name, hint)
        yield f


_NAMED_FLAG = re.compile(
    r"(?:use|set)\s+[`'\"]?(--[a-z0-9][a-z0-9-]*)[`'\"]?(?:\s+instead|[.)]|$)", re.I
)


def _autofix(ctx: CheckContext, opt, name: str, hint: str) -> Fix | None:
    """Safe: the replacement the release names when argparse stores it in the same dest
    with the same arity (the release itself treats the two as one option). Unsafe: the
    named replacement otherwise; dropping the flag and its values when none is named."""
    prof, spec = ctx.profile, ctx.spec
    match = _NAMED_FLAG.search(hint)
    new = prof.option_index.get(match.group(1)) if match else None
    if new is not None and match is not None:
        same = new.dest == opt.action.dest and all(
            new.raw.get(key) == opt.action.raw.get(key) for key in ("nargs", "kind", "choices"))
        return rename_token(spec, opt.index, name, match.group(1),
                            FixSafety.SAFE if same else FixSafety.UNSAFE,
                            f'write "{match.group(1)}"')
    if "--" not in hint.replace(name, ""):  # no replacement named at all
        return drop_tokens(spec, option_tokens(opt), f'drop "{name}"')
    return None
