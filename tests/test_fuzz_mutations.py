"""A bounded mutation-fuzzing run of the whole pipeline and every output format in CI:
``CI_INPUTS`` inputs (about 10 s); ``bench/robustness.py --fuzz N`` runs longer ones."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_mutations  # noqa: E402

CI_INPUTS = 150
CI_SECONDS = 60.0  # the bound asserted here (an idle 2-core machine: about 10 s)


def test_mutated_inputs_never_crash_and_render_safely() -> None:
    seed = int(os.environ.get("SERVELINT_FUZZ_SEED", "18"))
    t0 = time.perf_counter()
    failures = fuzz_mutations.run(CI_INPUTS, seed=seed)
    assert not failures, "\n".join(failures[:10])
    assert time.perf_counter() - t0 < CI_SECONDS


def test_the_properties_can_fail() -> None:
    assert fuzz_mutations.problems_with({"text": "a\x1b[2Jb"})
    assert fuzz_mutations.problems_with({"text": "ok\n::error file=x::y\n"})
    assert fuzz_mutations.problems_with({"github": "::error file=pwned::x\n"})
    assert fuzz_mutations.problems_with({"json": "{"})
    assert fuzz_mutations.problems_with({"sarif": '{"a": "\udce9"}'})
    assert not fuzz_mutations.problems_with({"github": "::error file=a.sh::m%0A::x\n"})
