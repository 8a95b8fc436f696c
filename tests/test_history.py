"""The release index: the first release after one that lacks a key."""

from __future__ import annotations

from servelint.engines.history import History


def _history() -> History:
    releases = ["0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0"]
    presence = {"option": {"--a": [0, 1, 2], "--b": [1, 3, 4], "--c": [0, 1, 2, 3, 4]}}
    return History({"engine": "vllm", "releases": releases, "presence": presence})


def test_next_release_without_skips_the_run_that_has_the_key() -> None:
    h = _history()
    assert h.next_release_without("option", "--a", "0.10.0") == "0.13.0"
    assert h.next_release_without("option", "--b", "0.11.0") == "0.12.0"
    assert h.next_release_without("option", "--b", "0.13.0") is None  # kept to the newest
    assert h.next_release_without("option", "--c", "0.10.0") is None
    assert h.next_release_without("option", "--gone", "0.12.0") == "0.13.0"


def test_next_release_without_from_a_release_between_two_profiles() -> None:
    h = _history()
    assert h.next_release_without("option", "--a", "0.11.5") == "0.13.0"  # after 0.11.0
    assert h.next_release_without("option", "--b", "0.9.0") == "0.10.0"  # before them all
    assert h.next_release_without("option", "--b", "0.12.5") is None
