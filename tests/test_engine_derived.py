"""What an engine reads once from its own data files is kept with its ``Engine``
(``Engine.derived``), not in a process-wide memo: made on first use, the same object after,
made afresh after ``forget`` (``history.write_index`` forgets the history it rewrote)."""

from __future__ import annotations

from servelint.engines import history, registry
from servelint.engines.base import Engine


def test_a_derived_table_is_made_once_and_again_after_forget():
    engine = Engine("derived-demo")
    made: list[str] = []

    def make(e: Engine) -> int:
        made.append(e.name)
        return len(made)

    assert engine.derived("table", make) == 1
    assert engine.derived("table", make) == 1
    assert made == ["derived-demo"]
    engine.forget("table")
    assert engine.derived("table", make) == 2
    assert Engine("derived-demo").derived("table", make) == 3  # another engine: its own


def test_the_release_history_is_kept_with_the_registered_engine():
    vllm = registry.find("vllm")
    assert vllm is not None
    found = history.load("vllm")
    assert found is not None and found is history.load("vllm")
    assert len(found.releases) > 1
    vllm.forget("history")
    again = history.load("vllm")
    assert again is not found and again.releases == found.releases


def test_an_unregistered_engine_has_no_history():
    assert history.load("no-such-engine") is None
