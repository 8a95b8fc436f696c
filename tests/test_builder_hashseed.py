"""The vLLM builder's output must not depend on the hash seed (frozenset iteration order)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

SNIPPET = """
from servelint.builders.vllm.parser_configs import _literal_choices
from servelint.builders.vllm.parser_types import Hint
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


FAKE = Path(__file__).parent / "data" / "vllm_parser" / "fakevllm"
BUILD = """
import json, sys
from servelint.builders.build import build_from_wheel
data = build_from_wheel("vllm", sys.argv[1])
pooling = next(a for a in data["parser"]["actions"] if a["dest"] == "pooling")
print(pooling["choices"])
print(json.dumps(data, sort_keys=True))
"""


def _build(wheel: Path, seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-c", BUILD, str(wheel)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_whole_profile_same_under_any_hash_seed(tmp_path: Path) -> None:
    # An option typed Literal[...] | Literal[...] | None: which literal's values became its
    # choices was the first of a frozenset, so it changed with the seed.
    wheel = tmp_path / "vllm-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for f in sorted(FAKE.rglob("*")):
            if f.is_file() and (f.suffix == ".py" or f.name == "METADATA"):
                zf.write(f, f.relative_to(FAKE).as_posix())
    outs = {_build(wheel, seed) for seed in ("0", "1", "2", "3", "4", "5", "6", "7")}
    assert len(outs) == 1
    assert outs.pop().splitlines()[0] == "['ALL', 'STEP', 'None']"
