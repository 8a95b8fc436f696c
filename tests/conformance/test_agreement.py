"""servelint's static verdicts must agree with the real `vllm serve` parser (committed verdicts).

Every disagreement is a bug; the known ones are listed with a reason in
known_disagreements.json. Any other disagreement fails, and so does a listed one that
no longer occurs (remove it from the list when it is fixed).
"""

from __future__ import annotations

import pytest

pytest.importorskip("servelint.engines.vllm.argv", reason="static parser not written yet")

from agreement import VERSIONS, cases, compare, known, verdicts  # noqa: E402

from servelint import profiles  # noqa: E402


def test_corpus_is_large_and_ids_unique() -> None:
    ids = [c["id"] for c in cases()]
    assert len(ids) >= 1000
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("version", VERSIONS)
def test_verdicts_cover_the_corpus(version: str) -> None:
    recorded = verdicts(version)
    if not recorded:
        pytest.skip(f"no committed verdicts for vllm {version}")
    assert {c["id"] for c in cases()} <= set(recorded)


@pytest.mark.parametrize("version", VERSIONS)
def test_static_verdicts_agree_with_the_real_parser(version: str) -> None:
    profile = profiles.load("vllm", version)
    if profile is None:
        pytest.skip(f"no committed profile for vllm {version}")
    if not verdicts(version):
        pytest.skip(f"no committed verdicts for vllm {version}")
    _, found = compare(profile, version)
    listed = {key for key in known() if key[0] == version}
    unlisted = [d for d in found if d.key not in listed]
    stale = sorted(listed - {d.key for d in found})
    report = "\n".join(f"  {d.check} {d.case_id}: argv={' '.join(d.argv)!r}\n"
                       f"      oracle: {d.oracle}\n      static: {d.static}"
                       for d in unlisted[:40])
    assert not unlisted, f"{len(unlisted)} unlisted disagreements (vllm {version}):\n{report}"
    assert not stale, f"listed disagreements that no longer occur: {stale[:20]}"
