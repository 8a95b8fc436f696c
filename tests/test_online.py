"""--online: index metadata on runtime-install findings, from canned answers (no network)."""

import json
import socket
import sys
from pathlib import Path

import pytest

from servelint.cli import main
from servelint.pipeline import online

DATA = Path(__file__).parent / "data" / "online"
SCRIPT = (
    "#!/bin/bash\npip install 'fastokens>=0.1.1,<0.2.0' totally-new-pkg\n"
    "vllm serve m --trust-remote-code\n"
)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection attempt fails the test: the canned answers are the only source."""

    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


class Canned:
    """Answers from tests/data/online/<name>.json, 404 for other names."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str, timeout: float) -> tuple[int, bytes]:
        assert timeout == online.TIMEOUT_S
        self.urls.append(url)
        name = url.rstrip("/").split("/")[-2]
        path = DATA / f"{name}.json"
        return (200, path.read_bytes()) if path.is_file() else (404, b"")


def test_facts_from_the_json_api_document():
    facts = online.facts_from_json("fastokens", json.loads((DATA / "fastokens.json").read_text()))
    assert facts.text() == (
        "index metadata for fastokens: author dev@fastokens.example; maintainers not given; "
        "licence MIT License; home page https://git.example/fastokens; first release "
        "2026-10-03; 2 releases"
    )
    facts = online.facts_from_json("requests", json.loads((DATA / "requests.json").read_text()))
    assert (facts.author, facts.license, facts.first_release, facts.releases) == (
        "Kenneth Reitz",
        "Apache-2.0",
        "2011-02-14",
        2,
    )


def test_lookups_are_cached_and_failures_are_said(tmp_path):
    canned = Canned()
    registry = online.Registry(tmp_path, fetch=canned)
    assert (
        registry.lookup("fastokens").found
        and registry.lookup("nope").text() == "nope is not on the package index"
    )
    again = online.Registry(tmp_path, fetch=canned)  # a later run: from the disk cache
    assert again.lookup("fastokens").releases == 2
    assert canned.urls == [
        "https://pypi.org/pypi/fastokens/json",
        "https://pypi.org/pypi/nope/json",
    ]
    stale = online.Registry(tmp_path, fetch=canned, now=lambda: 10**12)  # a day later: ask
    stale.lookup("fastokens")
    assert len(canned.urls) == 3

    def slow(url, timeout):
        raise TimeoutError

    assert (
        online.Registry(tmp_path / "x", fetch=slow).lookup("fastokens").text()
        == "index metadata for fastokens unavailable (no answer within 5 s)"
    )
    assert not (tmp_path / "x" / "online" / "fastokens.json").exists()  # failures not kept


def test_check_online_adds_metadata_to_the_runtime_install_finding(tmp_path, capsys, monkeypatch):
    canned = Canned()
    monkeypatch.setattr(online, "_fetch_url", canned)
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "run.sh").write_text(SCRIPT)
    code = main(
        [
            "check",
            "--no-cache",
            "--online",
            "--engine",
            "vllm==0.21.0",
            "--format",
            "json",
            str(tmp_path / "run.sh"),
        ]
    )
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "SL161"]
    assert code == 0 and len(found) == 1
    evidence = found[0]["evidence"]
    assert "index metadata for fastokens: author dev@fastokens.example;" in evidence
    assert "totally-new-pkg is not on the package index" in evidence
    assert len(canned.urls) == 2


def test_without_online_nothing_is_asked(tmp_path, capsys, monkeypatch):
    monkeypatch.delitem(sys.modules, "servelint.pipeline.online", raising=False)
    (tmp_path / "run.sh").write_text(SCRIPT)
    main(
        [
            "check",
            "--no-cache",
            "--engine",
            "vllm==0.21.0",
            "--format",
            "json",
            str(tmp_path / "run.sh"),
        ]
    )
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "SL161"]
    assert found and "index metadata" not in found[0]["evidence"]
    assert "servelint.pipeline.online" not in sys.modules  # the module is not even imported
