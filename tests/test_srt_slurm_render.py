"""servelint's srt-slurm rendering equals the worker commands srtctl itself builds.

``tests/data/srt_slurm/srtctl_commands.json`` was recorded by running srt-slurm's own loader,
allocator and ``build_worker_command`` offline (``tools/srt_slurm_oracle/run.py``, srt-slurm
c88ef731) on 40 corpus recipes spanning the three backends, the four entrypoints, override
selectors, multi-node and data-parallel layouts. A symbolic token of servelint's stands for
a value srtctl only knows at run time (an IP, a port, the log directory): it must match the
recorded token's shape, every other token must be equal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from servelint.sources.srt_slurm import read_recipe

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpus"
RECIPES = CORPUS / "inferencex" / "benchmarks" / "multi_node" / "srt-slurm-recipes"
EXPECTED = json.loads((HERE / "data" / "srt_slurm" / "srtctl_commands.json").read_text())
MODE_ROLE = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}
# what srtctl put where servelint keeps a run-time value symbolic
SHAPES = {
    "<leader-ip>": r"10\.0\.0\.1",
    "<leader-ip:dist-init-port>": r"10\.0\.0\.1:\d+",
    "<device-ids>": r"\d+(,\d+)*",
    "<config-dump-path>": r"<LOGDIR>/node0_config\.json",
    "<model-dir-name>": "MODELDIR",
}


def _matches(token, theirs: str) -> bool:
    if not token.symbolic:
        return token.text == theirs
    if token.text in SHAPES:
        return re.fullmatch(SHAPES[token.text], theirs) is not None
    if re.fullmatch(r"<[a-z-]+-port>", token.text):
        return theirs.isdigit()
    pattern = re.escape(token.text).replace(re.escape("<kv-events-port>"), r"\d+")
    return re.fullmatch(pattern, theirs) is not None


def _cases():
    for item, rows in sorted(EXPECTED.items()):
        yield pytest.param(item, rows, id=item)


@pytest.mark.skipif(not RECIPES.is_dir(), reason="InferenceX corpus not present")
@pytest.mark.parametrize(("item", "rows"), list(_cases()))
def test_rendering_equals_srtctl(item: str, rows: list[dict]) -> None:
    path, _, selector = item.partition(":")
    result = read_recipe(str(RECIPES / path), selector=selector or None)
    if rows and "selector_error" in rows[0]:
        assert not result.launches
        assert any("override selector" in p.message for p in result.problems)
        return
    _assert_same(result, rows)


# Sweep recipes (tests/data/srt_slurm/sweeps: srt-slurm c88ef731 examples/example-sweep.yaml
# and two reshaped from its recipes, each citing its source) expanded by srtctl's own
# generate_sweep_configs before build_worker_command (tools/srt_slurm_oracle/run.py).
SWEEPS = HERE / "data" / "srt_slurm" / "sweeps"
SWEPT = json.loads((HERE / "data" / "srt_slurm" / "srtctl_sweeps.json").read_text())


@pytest.mark.parametrize(("item", "rows"), sorted(SWEPT.items()))
def test_sweep_arms_equal_srtctl(item: str, rows: list[dict]) -> None:
    result = read_recipe(str(SWEEPS / item))
    assert not [p.message for p in result.problems]
    assert result.variants == len(rows)
    _assert_same(result, rows)


def test_sweep_value_is_pythons_str_of_the_yaml_value() -> None:
    """``enable-expert-parallel: "{ep}"`` with ``ep: [true, false]``: srtctl writes "True" and
    "False" after the flag (recorded above); the arm is named in the rendering."""
    result = read_recipe(str(SWEEPS / "vllm-ep-sweep.yaml"))
    seen = set()
    for spec in result.launches:
        texts = [t.text for t in spec.argv]
        if spec.context["role"] == "prefill":
            value = texts[texts.index("--enable-expert-parallel") + 1]
            seen.add((spec.rendering.split("_ep")[1].split("_")[0], value))
    assert seen == {("True", "True"), ("False", "False")}


def _assert_same(result, rows: list[dict]) -> None:  # noqa: ANN001
    mine = {
        (s.context["recipe_name"], s.context["role"]): s
        for s in result.launches
        if s.context["role"] != "frontend"
    }
    assert len(mine) == sum(len(r["modes"]) for r in rows)
    for row in rows:
        for mode, want in row["modes"].items():
            spec = mine[(row["name"], MODE_ROLE[mode])]
            prefix = spec.context["prefix"].split()
            got = prefix + spec.entrypoint.split() + [t.text for t in spec.argv]
            assert len(got) == len(want["cmd"]), (got, want["cmd"])
            head = len(prefix) + len(spec.entrypoint.split())
            assert got[:head] == want["cmd"][:head]
            bad = [
                (t.text, w)
                for t, w in zip(spec.argv, want["cmd"][head:], strict=True)
                if not _matches(t, w)
            ]
            assert not bad, bad
            assert {e.name: e.value for e in spec.env} == want["env"]


def test_oracle_covers_the_three_backends_and_twenty_recipes() -> None:
    entry = {
        cmd
        for rows in EXPECTED.values()
        for r in rows
        for m in r.get("modes", {}).values()
        for cmd in [" ".join(w for w in m["cmd"][:4] if not w.startswith("-"))]
    }
    assert len(EXPECTED) >= 20
    assert any("dynamo.vllm" in e for e in entry) and any("dynamo.sglang" in e for e in entry)
    assert any("dynamo.trtllm" in e for e in entry) and any("vllm serve" in e for e in entry)
