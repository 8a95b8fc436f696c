"""The memo of SL114's verdicts (engines/vllm/failures_memo.py): launches whose key is the
same get the same failures computed afresh, so the key holds every value a check reads."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from servelint import profiles
from servelint.engines.vllm import argv as vllm_argv
from servelint.engines.vllm import failures_memo, validators
from servelint.engines.vllm.launch_values import LaunchValues

CASES = Path(__file__).parent / "conformance" / "adversarial"


def _argvs(version: str, combos: int) -> list[list[str]]:
    """The adversarial cases of ``version`` and random combinations of their options (so
    that failing options meet values of other dests)."""
    with gzip.open(CASES / f"{version}.cases.jsonl.gz", "rt") as fh:
        cases = [json.loads(line)["argv"] for line in fh]
    rnd = random.Random(12)
    mixed = [
        [rnd.choice(["m", "org/other-model"])]
        + sum((rnd.choice(cases)[1:] for _ in range(rnd.randint(2, 5))), [])
        for _ in range(combos)
    ]
    return cases + mixed


def _unmemoised(options: list, unknown, profile) -> tuple:
    """``validators._failures`` with every part computed afresh (no memo)."""
    memoised = failures_memo.part_failures
    failures_memo.part_failures = lambda table, part, dests, maps, compute: tuple(compute())
    try:
        return tuple(validators._failures(profile, LaunchValues(profile, options, unknown)))
    finally:
        failures_memo.part_failures = memoised


@pytest.mark.parametrize("version", ["0.11.0", "0.33.0"])
def test_launches_sharing_a_key_get_the_same_failures(version):
    """The memo of whole launches and the memo of each part (a built class, a from_dict
    class, the EngineArgs checks, the bounds) give what computing every part afresh gives."""
    profile = profiles.load("vllm", version)
    table = profile.data["conditions"]
    seen: dict[object, tuple] = {}
    shared = failing = 0
    for argv in _argvs(version, 2000):
        parsed = vllm_argv.parse(profile, argv)
        if not parsed.ok:
            continue
        options = list(parsed.options)
        for unknown in (lambda o: False, lambda o: o.index % 3 == 1):
            launch = LaunchValues(profile, options, unknown)
            key = failures_memo._key(profile, table, launch)
            direct = _unmemoised(options, unknown, profile)
            memoised = failures_memo.failures(profile, launch, validators._failures)
            assert memoised == direct, argv
            if key is None:
                continue
            if key in seen:
                shared += 1
                assert seen[key] == direct, argv
            seen[key] = direct
            failing += bool(direct)
    assert shared > 1000 and failing > 100  # keys are shared, among failing launches too


@pytest.mark.parametrize("version", ["0.21.0", "0.33.0"])
def test_memoised_verdicts_are_the_verdicts_computed_afresh(version, monkeypatch):
    """``validators.failures`` of a serve launch (its namespace checks and the built fields'
    bounds too) with the memos warm is what it is with every part computed afresh."""
    profile = profiles.load("vllm", version)
    launches = []
    for argv in _argvs(version, 1500):
        parsed = vllm_argv.parse(profile, argv)
        if parsed.ok:
            launches.append(list(parsed.options))
    unknown = lambda o: o.index % 4 == 3  # noqa: E731
    warm = [validators.failures(profile, opts, unknown, entry="serve") for opts in launches]
    warm += [validators.failures(profile, opts, unknown, entry="serve") for opts in launches]
    monkeypatch.setattr(
        failures_memo, "part_failures", lambda table, part, dests, maps, compute: tuple(compute())
    )
    monkeypatch.setattr(
        failures_memo, "failures", lambda profile, launch, compute: tuple(compute(profile, launch))
    )
    afresh = [validators.failures(profile, opts, unknown, entry="serve") for opts in launches]
    assert warm == afresh + afresh
    assert sum(bool(f) for f in afresh) > 100


def test_values_are_keyed_with_their_type():
    frozen = failures_memo._frozen
    assert len({frozen(1), frozen(True), frozen(1.0), frozen("1")}) == 4
    assert frozen(0.0) != frozen(-0.0)
    assert frozen({"a": 1, "b": 2}) != frozen({"b": 2, "a": 1})  # the order the engine meets
    assert frozen([1]) != frozen((1,))
    with pytest.raises(failures_memo._Unkeyable):
        frozen(object())


def test_values_no_check_reads_share_an_entry():
    profile = profiles.load("vllm", "0.21.0")
    table = profile.data["conditions"]

    def key(argv: list[str]) -> object:
        options = list(vllm_argv.parse(profile, argv).options)
        return failures_memo._key(profile, table, LaunchValues(profile, options, lambda o: False))

    base = ["a/model", "--numa-bind-nodes", "0"]
    assert key(base) == key(["b/model", "--numa-bind-nodes", "0"])
    assert key(base) != key(["a/model", "--numa-bind-nodes", "1"])
    assert key(base) != key([*base, "--numa-bind"])
