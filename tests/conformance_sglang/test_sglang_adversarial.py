"""The adversarial SGLang corpus (tools/sglang_oracle/gen_cases.py, >= 10,000 cases per
release, judged by the real parser): no false error, >= 99% agreement, and every
disagreement listed with its reason in adversarial_known.json."""

from __future__ import annotations

from pathlib import Path

import pytest
from sglang_adversarial import files, judge, known

FILES = files()


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_adversarial_agreement(path, monkeypatch):
    monkeypatch.chdir(path.parents[2])  # config cases name repo-relative YAML files
    out = judge(path)
    listed = known().get(out.release, {})
    assert out.cases >= 10_000
    assert not out.false_errors, "\n".join(
        f"{c['id']}: {c['argv'][2:]} real accepts, ours: {c['ours']}" for c in out.false_errors[:30]
    )
    unlisted = [c for c in out.misses if c["id"] not in listed]
    assert not unlisted, "\n".join(
        f"{c['id']}: {c['argv'][2:]} real: {c['real']}" for c in unlisted[:30]
    )
    stale = set(listed) - {c["id"] for c in out.misses}
    assert not stale, f"listed but agreeing now: {sorted(stale)[:20]}"
    assert out.agree / out.cases >= 0.99


def test_every_release_has_a_corpus():
    assert {judge_path.name for judge_path in FILES} >= {
        "adversarial-0.5.9.json.gz",
        "adversarial-0.5.23.json.gz",
    }


def test_conformance_doc_has_the_current_sglang_section():
    # docs/conformance.md's SGLang block is tools/sglang_oracle/write_conformance_doc.py's
    # output (a regeneration of the vLLM part must keep it)
    import importlib.util

    tool = Path(__file__).parents[2] / "tools" / "sglang_oracle" / "write_conformance_doc.py"
    spec = importlib.util.spec_from_file_location("sglang_conformance_doc", tool)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.section().strip() in mod.DOC.read_text()
