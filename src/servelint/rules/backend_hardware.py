"""backend that the target GPU cannot run (compute capability, KV cache dtype)

Attention backends declare the compute capabilities and KV cache dtypes they support in
the release's code. Selecting one the GPU cannot run fails when the engine picks its
backend. servelint knows the GPU from the recipe's hardware, the benchmark runner or
``--gpu``.

Bad (TokenSpeed MLA needs compute capability 10.x; an H200 is 9.0):

```bash bad engine=vllm==0.21.0 gpu=h200
vllm serve deepseek-ai/DeepSeek-R1 --kv-cache-dtype fp8 --attention-backend TOKENSPEED_MLA
```

Good:

```bash good engine=vllm==0.21.0 gpu=b300
vllm serve deepseek-ai/DeepSeek-R1 --kv-cache-dtype fp8 --attention-backend TOKENSPEED_MLA
```

Fix: choose a backend the GPU supports, or run on hardware the backend supports.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import token_span, written_options
from servelint.rules.base import CheckContext, Scope, finding
from servelint.rules.value_late import values_to_check
from servelint.util import hardware

CODE = "SL151"
NAME = "backend-hardware"
SEVERITY = Severity.ERROR
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE


def cc_allowed(limit: dict[str, Any], cc: tuple[int, int]) -> bool | None:
    """True/False when the declared limit decides, None when it says nothing usable."""
    major, minor = cc
    if "majors" in limit:
        return major in limit["majors"]
    if "capabilities" in limit:
        return [major, minor] in [list(c) for c in limit["capabilities"]] or \
            major * 10 + minor in limit["capabilities"]
    lo, hi = limit.get("min"), limit.get("max")
    if lo is None and hi is None:
        return None
    val = major * 10 + minor
    lo_v = lo[0] * 10 + lo[1] if isinstance(lo, list) else lo
    hi_v = hi[0] * 10 + hi[1] if isinstance(hi, list) else hi
    return (lo_v is None or val >= lo_v) and (hi_v is None or val <= hi_v)


def describe(limit: dict[str, Any]) -> str:
    if "majors" in limit:
        return " or ".join(f"{m}.x" for m in limit["majors"])
    if "capabilities" in limit:
        return ", ".join(str(c) for c in limit["capabilities"])
    return f"{limit.get('min', '?')}..{limit.get('max', '?')}"


def _backend_dests(prof) -> frozenset[str]:  # noqa: ANN001
    """The dests whose values the release checks against a backend list."""
    return frozenset(
        target.split(".", 1)[0] for name, entry in prof.late_values.items()
        if "backend" in name for target in entry.get("targets", [])
    )


def may_apply(prof, option_texts: list[str | None]) -> bool:  # noqa: ANN001
    """A cheap test before a full check: does any (exactly written) option set a value the
    release checks against a backend list? Abbreviated options are not looked up."""
    dests = prof.derived("backend_hardware.dests", _backend_dests)
    return any(
        dest in dests and (value is None or value.upper() in prof.backends or "{" in value)
        for dest, value in written_options(prof, option_texts)
    )


def check(ctx: CheckContext) -> Iterator[Finding]:
    gpu = hardware.lookup(ctx.spec.gpu)
    if gpu is None or gpu.compute_capability is None:
        return
    prof = ctx.profile
    kv_dtype = None
    for opt in ctx.parsed.options:
        if opt.action is not None and opt.action.dest == "kv_cache_dtype" and \
                isinstance(opt.value, str):
            kv_dtype = opt.value

    for target, value, index in values_to_check(ctx):
        entry = prof.late_for(target)
        if entry is None or "backend" not in entry[0]:
            continue
        prefix = "" if entry[0] == "attention_backend" else entry[0].removesuffix("_backend") + ":"
        limits = prof.backends.get(prefix + value)
        if not limits:
            continue
        cc = gpu.compute_capability
        limit = limits.get("compute_capability") or {}
        ok = cc_allowed(limit, cc)
        if ok is False:
            yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, index),
                          f'backend "{value}" needs compute capability {describe(limit)} in '
                          f"{prof.label}; {gpu.name} ({ctx.spec.gpu}) is {cc[0]}.{cc[1]}",
                          fix="choose a backend this GPU supports, or run on a GPU it supports",
                          evidence=limits.get("source", ""))
        dtypes = limits.get("kv_cache_dtypes")
        if dtypes and kv_dtype and kv_dtype != "auto" and kv_dtype not in dtypes:
            yield finding(sys.modules[__name__], ctx, token_span(ctx.spec, index),
                          f'backend "{value}" supports KV cache dtypes {", ".join(dtypes)} in '
                          f'{prof.label}, not "{kv_dtype}"',
                          fix="set --kv-cache-dtype to a supported dtype",
                          evidence=limits.get("source", ""))
