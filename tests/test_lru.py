"""The bounded memo every process-global memo of the check path uses."""

from __future__ import annotations

from servelint.util.lru import Lru


def test_the_least_recently_used_entry_is_dropped_first() -> None:
    memo = Lru(2)
    calls: list[str] = []
    for key in ["a", "b", "a", "c", "a", "b"]:
        memo.get_or(key, lambda k=key: calls.append(k) or k.upper())
    assert calls == ["a", "b", "c", "b"]  # "b" was dropped when "c" came, "a" never
    assert list(memo) == ["a", "b"]


def test_an_identity_entry_holds_its_object_and_tells_equal_objects_apart() -> None:
    memo = Lru(8)
    first, second = [1], [1]
    assert memo.get_for(first, lambda: "first") == "first"
    assert memo.get_for(second, lambda: "second") == "second"  # equal, not the same
    assert memo.get_for(first, lambda: "again") == "first"
    assert memo.get_for(first, lambda: "other key", key="k") == "other key"
    assert all(held in (first, second) for held, _ in memo.values())
