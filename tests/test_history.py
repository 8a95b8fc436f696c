"""The release index: its run strings, the committed files, the first release after one that
lacks a key."""

from __future__ import annotations

import gzip
import json

import pytest

from servelint import profiles
from servelint.engines import history
from servelint.engines.history import (
    History,
    IndexFormatError,
    decode_runs,
    encode_runs,
)

RUNS = [
    ([], ""),
    ([4], "4"),
    ([0], "0"),
    ([3, 4], "3-4"),
    ([5, 6, 7, 8], "5-8"),
    ([0, 1, 2, 3, 7, 8, 9], "0-3,7-9"),
    ([1, 3, 5], "1,3,5"),
    ([0, 2, 3, 10, 12, 13, 14], "0,2-3,10,12-14"),
    ([37, 38], "37-38"),
    ([9, 10, 11, 12], "9-12"),  # two-digit bounds
]


@pytest.mark.parametrize(("indices", "text"), RUNS)
def test_runs_round_trip(indices: list[int], text: str) -> None:
    assert encode_runs(indices) == text
    assert decode_runs(text) == tuple(indices)


def test_keys_in_reads_every_run_of_a_key() -> None:
    releases = [f"0.{i}.0" for i in range(16)]
    presence = {"option": {f"--k{n}": text for n, (_, text) in enumerate(RUNS)}}
    h = History(
        {"format": history.FORMAT, "engine": "vllm", "releases": releases, "presence": presence}
    )
    for i in range(16):
        want = sorted(f"--k{n}" for n, (indices, _) in enumerate(RUNS) if i in indices)
        assert h.keys_in("option", i) == want, i


@pytest.mark.parametrize("indices", [[3, 3], [4, 2], [0, 1, 1]])
def test_encode_runs_refuses_indices_not_strictly_ascending(indices: list[int]) -> None:
    with pytest.raises(ValueError, match="strictly ascending"):
        encode_runs(indices)


def _history() -> History:
    releases = ["0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0"]
    lists = {"option": {"--a": [0, 1, 2], "--b": [1, 3, 4], "--c": [0, 1, 2, 3, 4]}}
    presence = {kind: {k: encode_runs(v) for k, v in keys.items()} for kind, keys in lists.items()}
    return History(
        {"format": history.FORMAT, "engine": "vllm", "releases": releases, "presence": presence}
    )


def test_indices_and_keys_in() -> None:
    h = _history()
    assert h.indices("option", "--b") == (1, 3, 4)
    assert h.indices("option", "--gone") == ()
    assert h.indices("env", "X") == ()  # a kind the index lacks
    assert h.keys_in("option", 0) == ["--a", "--c"]
    assert h.keys_in("option", 3) == ["--b", "--c"]
    assert h.keys_in("env", 0) == []
    assert h.of("option", "--b").releases == ("0.11.0", "0.13.0", "0.14.0")


def test_removed_after_and_first_after() -> None:
    h = _history()
    assert h.removed_after("option", "--a", "0.11.0") == "0.13.0"
    assert h.removed_after("option", "--b", "0.11.0") == "0.12.0"
    assert h.removed_after("option", "--b", "0.13.0") is None  # kept to the newest
    assert h.removed_after("option", "--b", "0.10.0") is None  # not there yet
    assert h.first_after("option", "--b", "0.11.0") == "0.13.0"
    assert h.first_after("option", "--a", "0.12.0") is None


def test_an_index_of_another_format_is_refused() -> None:
    old = {"engine": "vllm", "releases": ["0.10.0"], "presence": {"option": {"--a": [0]}}}
    with pytest.raises(IndexFormatError, match="format 1.*servelint profile index vllm"):
        History(old)


@pytest.mark.parametrize("engine", profiles.engines())
def test_committed_index_is_what_the_committed_profiles_build(engine: str) -> None:
    path = profiles.folder(engine) / "history.json.gz"
    if not path.is_file():
        pytest.skip(f"{engine} has no history index")
    assert path.read_bytes() == history.index_bytes(engine), (
        f"rebuild with `servelint profile index {engine}`"
    )
    loaded = History(json.loads(gzip.decompress(path.read_bytes())))
    lists = history.presence_lists(engine)
    for kind, keys in lists.items():
        for key, indices in keys.items():
            assert loaded.indices(kind, key) == tuple(indices), (kind, key)
    for i in range(len(loaded.releases)):
        assert loaded.keys_in("option", i) == sorted(
            k for k, v in lists["option"].items() if i in v
        )


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
