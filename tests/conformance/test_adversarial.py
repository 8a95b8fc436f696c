"""servelint against the real `vllm serve` on the adversarial corpus (committed verdicts).

Zero false errors: a case the real engine accepts at every stage it ran must not be
rejected. Every other disagreement (a miss) must be listed with its reason in
adversarial/known.json, and a listed one that no longer occurs fails too.
"""

from __future__ import annotations

import pytest
from adversarial import AGREE, VERSIONS, cases, judge, known, verdicts

from servelint import profiles

# Releases whose adversarial verdicts are committed: judged, never skipped.
RECORDED = ("0.11.0", "0.21.0", "0.27.1", "0.33.0")


def _judged(version: str):
    profile = profiles.load("vllm", version)
    if profile is None or not verdicts(version):
        pytest.skip(f"no committed adversarial verdicts for vllm {version}")
    return judge(profile, version)


@pytest.mark.parametrize("version", RECORDED)
def test_recorded_release_is_judged(version: str) -> None:
    assert cases(version), f"no adversarial cases committed for vllm {version}"
    assert verdicts(version), f"no adversarial verdicts committed for vllm {version}"
    assert profiles.load("vllm", version) is not None, f"no vllm {version} profile"


@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_is_large_and_covered(version: str) -> None:
    if not verdicts(version):
        pytest.skip(f"no committed adversarial verdicts for vllm {version}")
    ids = [c["id"] for c in cases(version)]
    assert len(ids) >= 10_000
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(verdicts(version))


@pytest.mark.parametrize("version", VERSIONS)
def test_no_false_errors(version: str) -> None:
    bad = [j for j in _judged(version) if j.verdict == "false-error"]
    report = "\n".join(
        f"  {j.case['id']}: {' '.join(j.case['argv'])!r}: {j.static.message}" for j in bad[:30]
    )
    assert not bad, f"{len(bad)} false errors on vllm {version}:\n{report}"


@pytest.mark.parametrize("version", VERSIONS)
def test_every_miss_is_listed(version: str) -> None:
    # false errors are test_no_false_errors' business (never listed here)
    found = {j.key for j in _judged(version) if j.verdict not in AGREE | {"false-error"}}
    listed = {key for key in known() if key[0] == version}
    unlisted = sorted(found - listed)
    stale = sorted(listed - found)
    assert not unlisted, f"{len(unlisted)} unlisted disagreements: {unlisted[:20]}"
    assert not stale, f"listed disagreements that no longer occur: {stale[:20]}"
