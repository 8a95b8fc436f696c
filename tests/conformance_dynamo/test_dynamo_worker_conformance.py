"""servelint's ``dynamo.sglang`` verdicts vs the real worker parser (tools/dynamo_oracle):
every disagreement listed with its reason in worker_known.json; the only false errors
allowed are listed ones whose root cause is outside the Dynamo path (the SGLang profile)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from dynamo_worker_conformance import files, judge, key, known

FILES = files()


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_worker_agreement(path):
    out = judge(path)
    listed = known().get(key(out), {})
    assert out.cases >= 1_000
    assert out.oracle_rejected > 100  # the corpus has cases the real parser rejects
    unlisted_fe = [c for c in out.false_errors if not listed.get(c["id"], "").startswith("false")]
    assert not unlisted_fe, "\n".join(
        f"{c['id']}: {c['argv']} real accepts, ours: {c['ours']}" for c in unlisted_fe[:30]
    )
    corpus = [c for c in out.false_errors + out.misses if c["id"].startswith("corpus:")]
    assert not corpus, corpus[:5]  # every rendered corpus launch agrees
    unlisted = [c for c in out.misses if not listed.get(c["id"], "").startswith("miss")]
    assert not unlisted, "\n".join(
        f"{c['id']}: {c['argv']} real: {c['real']}" for c in unlisted[:30]
    )
    stale = set(listed) - {c["id"] for c in out.misses + out.false_errors}
    assert not stale, f"listed but agreeing now: {sorted(stale)[:20]}"


def test_two_dynamo_releases_are_covered():
    assert {p.name for p in FILES} >= {
        "worker-sglang-1.3.1.json.gz",
        "worker-sglang-1.4.0.json.gz",
        "worker-vllm-1.4.0.json.gz",
    }


def test_conformance_doc_has_the_current_dynamo_section():
    tool = Path(__file__).parents[2] / "tools" / "dynamo_oracle" / "write_conformance_doc.py"
    spec = importlib.util.spec_from_file_location("dynamo_conformance_doc", tool)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.DOC.read_text()
    assert mod.section().strip() in text
    assert text.index("<!-- other engines:") < text.index(mod.BEGIN)
