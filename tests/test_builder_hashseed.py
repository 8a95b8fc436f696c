"""The vLLM builder's output must not depend on the hash seed (frozenset iteration order)."""

from __future__ import annotations

import os
import subprocess
import sys

SNIPPET = """
from servelint.engines.vllm.builder.parser_configs import _literal_choices
from servelint.engines.vllm.builder.parser_types import Hint
seq = Hint("literal", args=("CLS", "LAST", "MEAN"))
tok = Hint("literal", args=("ALL", "STEP"))
nested = Hint("builtin", "list", (frozenset({Hint("literal", args=("b",)),
                                               Hint("literal", args=("a",))}),))
print(_literal_choices(frozenset({seq, tok, Hint("none")})), _literal_choices(frozenset({nested})))
"""


def _run(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-c", SNIPPET], env=env, capture_output=True, text=True, check=True
    ).stdout


def test_literal_choices_same_under_any_hash_seed() -> None:
    outs = {_run(seed) for seed in ("0", "1", "2", "3", "4", "5")}
    assert len(outs) == 1, outs
    assert outs.pop().strip() == "['ALL', 'STEP', 'CLS', 'LAST', 'MEAN'] ['a', 'b']"
