"""Bounds of config fields create_engine_config fills from options that do not name their
field (engines/vllm/built_bounds.py), judged on the releases' own profiles."""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.engines.vllm.verdict import static_verdict


@pytest.mark.parametrize(
    ("version", "argv", "stage", "source"),
    [
        # ParallelConfig(data_parallel_rpc_port=<the dest, or the class default>)
        ("0.33.0", ["m", "--data-parallel-rpc-port", "0"], "engine_config", "parallel.py:161"),
        ("0.33.0", ["m", "--data-parallel-rpc-port", "100"], "accepted", ""),
        ("0.21.0", ["m", "--shutdown-timeout", "-1"], "engine_config", "vllm.py:356"),
        ("0.21.0", ["m", "--shutdown-timeout", "0"], "accepted", ""),
    ],
)
def test_bound_of_the_built_field(version: str, argv: list[str], stage: str, source: str) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    verdict = static_verdict(profile, argv)
    assert verdict.stage == stage
    assert source in verdict.message
