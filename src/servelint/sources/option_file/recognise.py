"""Whether a YAML text is a TensorRT-LLM LLM API option file: its top-level keys are mostly
LLM API argument names of a profiled release (read from the profiles, never typed here)."""

from __future__ import annotations

import functools
import re

from servelint import profiles

_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:", re.M)
MIN_SHARE = 0.6  # a few typos or removed keys still make the file one


@functools.cache
def llm_api_keys() -> frozenset[str]:
    """Every top-level LLM API argument of every profiled TensorRT-LLM release (both backends)."""
    from servelint.engines.trtllm.option_file import model_of

    out: set[str] = set()
    for version in profiles.available("trtllm"):
        prof = profiles.load("trtllm", version)
        if prof is None:
            continue
        model = model_of(prof)
        for root in model.roots.values():
            out.update(model.fields(root))
    return frozenset(out)


def looks_like_llm_api(text: str) -> bool:
    """Two top-level keys or more, three in four of them LLM API arguments; or one key that
    is an LLM API ``*_config`` argument."""
    keys = list(dict.fromkeys(_TOP_KEY.findall(text)))
    if not keys:
        return False
    known = llm_api_keys()
    hits = sum(1 for k in keys if k in known)
    if len(keys) == 1:
        return hits == 1 and keys[0].endswith("_config")
    return hits >= 2 and hits >= MIN_SHARE * len(keys)
