"""Whether a YAML text is a TensorRT-LLM LLM API option file: its top-level keys are mostly
LLM API argument names of a profiled release (read from the profiles, never typed here)."""

from __future__ import annotations

import re

from servelint import profiles
from servelint.engines import registry
from servelint.engines.trtllm.llm_api_model import model_of

_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:", re.M)
MIN_SHARE = 0.6  # a few typos or removed keys still make the file one


def _top_keys(prof: profiles.Profile) -> frozenset[str]:
    """Every top-level LLM API argument of one release (both backends)."""
    model = model_of(prof)
    return frozenset(name for root in model.roots.values() for name in model.fields(root))


def _key_sets() -> list[frozenset[str]]:
    """The top-level LLM API arguments of each profiled release of the engines that judge
    option files (``Engine.option_file_checks``: TensorRT-LLM)."""
    loaded = (
        profiles.load(engine.name, version)
        for engine in registry.engines() if engine.option_file_checks
        for version in profiles.available(engine.name)
    )
    return [p.derived("option_file.recognise.top_keys", _top_keys) for p in loaded if p]


def looks_like_llm_api(text: str) -> bool:
    """Two top-level keys or more, three in four of them LLM API arguments; or one key that
    is an LLM API ``*_config`` argument."""
    keys = list(dict.fromkeys(_TOP_KEY.findall(text)))
    if not keys:
        return False
    known = _key_sets()
    hits = sum(1 for k in keys if any(k in release for release in known))
    if len(keys) == 1:
        return hits == 1 and keys[0].endswith("_config")
    return hits >= 2 and hits >= MIN_SHARE * len(keys)
