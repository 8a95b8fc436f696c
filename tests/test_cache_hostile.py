"""The results cache against forged and planted files, edited ``--config`` files and a
changed working directory (issue 33 items 4 and 5, issue 32 item 3): a run served from the
cache says what a fresh run says, never hangs, never reads or writes outside the cache."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from servelint.check import Options, check_paths
from servelint.pipeline import cache, online

SGLANG_LAUNCH = "python -m sglang.launch_server --model-path org/m --config {cfg}\n"


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(folder))
    return folder


def _report(paths: list[str], use_cache: bool) -> list[tuple]:
    report = check_paths(paths, Options(use_cache=use_cache, jobs=1))
    return sorted((f.span.path, f.span.line, f.code, f.message) for f in report.findings)


def _cli_json(args: list[str], cwd: Path | None = None, timeout: float = 120) -> dict:
    proc = subprocess.run([sys.executable, "-m", "servelint.cli", "check", "-j1", "--format",
                           "json", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=dict(os.environ))
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads(proc.stdout)  # (an invalid or duplicated-key document fails here)


def _within(seconds: float, fn):
    done: list = []
    worker = threading.Thread(target=lambda: done.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, "the run hung"
    return done[0]


# ---------------------------------------------------------------- forged entries


def _forge_launches(folder: Path, line: bytes) -> None:
    """Replace every launches file's summary with ``line`` under a recomputed header."""
    files = sorted(folder.rglob("*.launches"))
    assert files
    for path in files:
        key = path.name.removesuffix(".launches")
        header = {"format": cache.CACHE_FORMAT, "key": key, "count": 1,
                  "sha256": hashlib.sha256(line).hexdigest()}
        path.write_bytes(json.dumps(header).encode() + b"\n" + line)


@pytest.mark.parametrize("line", [
    # a second "errors" after the true one: a JSON reader keeps the forged 0
    b'{"path":"x.sh","judged_against":["vllm 0.21.0"],"errors":1,"errors":0}',
    # a raw ESC in a string: the report would not be JSON (and would act on a terminal)
    b'{"path":"x\x1b]0;pwned\x07.sh","judged_against":["vllm 0.21.0"],"errors":1}',
    # well-formed, but the report gets it parsed and written again, not pasted
    b'{"path":"x\\u001b.sh","judged_against":["vllm 0.21.0"],"errors":1}',
])
def test_forged_launch_lines_are_parsed_never_pasted(
    line: bytes, tmp_path: Path, cache_folder: Path
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n", encoding="utf-8")
    fresh = _cli_json(["--no-cache", str(script)])
    _cli_json([str(script)])  # fills the cache
    _forge_launches(cache_folder, line)
    served = _cli_json([str(script)])
    assert served["findings"] == fresh["findings"]
    for launch in served["launches"]:
        assert launch.get("errors") in (None, 1)
        assert "\x1b" not in json.dumps(launch, ensure_ascii=False)
    if b'"errors":0' in line or b"\x07" in line:  # not a document: a miss, checked again
        assert served["launches"] == fresh["launches"]


def test_a_repeated_key_in_a_launch_line_is_a_miss(cache_folder: Path) -> None:
    key = "a" * 64
    line = b'{"judged_against":[],"errors":1,"errors":0}'
    path = cache_folder / key[:2] / f"{key}.launches"
    path.parent.mkdir(parents=True)
    header = {"format": cache.CACHE_FORMAT, "key": key, "count": 1,
              "sha256": hashlib.sha256(line).hexdigest()}
    path.write_bytes(json.dumps(header).encode() + b"\n" + line)
    assert cache.load_launch_lines(key) is None
    path.write_bytes(json.dumps(header).encode() + b"\n" + line.replace(b',"errors":0', b""))
    header["sha256"] = hashlib.sha256(line.replace(b',"errors":0', b"")).hexdigest()
    path.write_bytes(json.dumps(header).encode() + b"\n" + line.replace(b',"errors":0', b""))
    assert cache.load_launch_lines(key) == ['{"judged_against":[],"errors":1}']


# ---------------------------------------------------------------- planted files, every folder


def _plant(path: Path, what: str, outside: Path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dev-zero":
        path.symlink_to("/dev/zero")
    elif what == "symlink-out":
        path.symlink_to(outside)
    else:
        path.write_bytes(os.urandom(2048))


@pytest.mark.parametrize("what", ["fifo", "dev-zero", "symlink-out", "garbage"])
def test_planted_files_in_every_cache_file_are_misses(
    what: str, tmp_path: Path, cache_folder: Path
) -> None:
    """Entries, launches files and ``code.json``: each replaced by a FIFO, a symlink to
    /dev/zero or outside the cache, or garbage; the run ends with the fresh result and the
    file outside is neither read as an entry nor written."""
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n", encoding="utf-8")
    fresh = _report([str(script)], False)
    cache.installed_fingerprint.cache_clear()  # (kept per process: written to code.json once)
    _report([str(script)], True)
    planted = [p for p in cache_folder.rglob("*") if p.is_file()]
    assert {p.suffix for p in planted} >= {".json", ".launches"}
    assert cache_folder / "code.json" in planted
    for path in planted:
        _plant(path, what, outside)
    cache.installed_fingerprint.cache_clear()
    assert _within(60, lambda: _report([str(script)], True)) == fresh
    assert outside.read_text(encoding="utf-8") == "keep\n"


def test_a_symlinked_sub_folder_is_neither_read_nor_written(
    tmp_path: Path, cache_folder: Path
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n", encoding="utf-8")
    fresh = _report([str(script)], False)
    _report([str(script)], True)
    sub = next(p for p in cache_folder.iterdir() if p.is_dir())
    elsewhere = tmp_path / "elsewhere"
    sub.rename(elsewhere)
    sub.symlink_to(elsewhere)  # the entries are there, behind a symlink: not served
    names = sorted(p.name for p in elsewhere.iterdir())
    assert _report([str(script)], True) == fresh
    assert sorted(p.name for p in elsewhere.iterdir()) == names  # nothing written through


FACTS = {"info": {"name": "fastokens", "author": "a", "license": "MIT"},
         "releases": {"0.1.0": [{"upload_time": "2024-01-02T00:00:00"}]}}


def _registry(folder: Path, asked: list) -> online.Registry:
    def fetch(url: str, timeout: float) -> tuple[int, bytes]:
        asked.append(url)
        return 200, json.dumps(FACTS).encode()

    return online.Registry(folder, fetch=fetch)


@pytest.mark.parametrize("what", ["fifo", "dev-zero", "symlink-out", "garbage"])
def test_online_cache_planted_entries_are_misses(what: str, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"at": 10**12, "facts": {"name": "forged", "found": True}}))
    asked: list = []
    _registry(tmp_path, asked).lookup("fastokens")
    entry = tmp_path / "online" / "fastokens.json"
    assert entry.is_file() and len(asked) == 1
    _plant(entry, what, outside)
    facts = _within(30, lambda: _registry(tmp_path, asked).lookup("fastokens"))
    assert facts.name == "fastokens" and len(asked) == 2  # a miss: asked again
    assert "forged" in outside.read_text()


def test_online_store_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    (tmp_path / "online").mkdir()
    (tmp_path / "online" / "fastokens.tmp").symlink_to(victim)  # the old fixed temp name
    _registry(tmp_path, []).lookup("fastokens")
    assert victim.read_text(encoding="utf-8") == "keep\n"
    assert (tmp_path / "online" / "fastokens.json").is_file()
    linked = tmp_path / "c2"
    linked.mkdir()
    (linked / "online").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    _registry(linked, []).lookup("fastokens")
    assert not any((tmp_path / "elsewhere").iterdir())


def test_online_entry_with_forged_field_types_is_a_miss(tmp_path: Path) -> None:
    asked: list = []
    (tmp_path / "online").mkdir()
    (tmp_path / "online" / "fastokens.json").write_text(json.dumps(
        {"at": 10**12, "facts": {"name": ["x"], "found": True, "releases": {"a": 1}}}))
    registry = _registry(tmp_path, asked)
    registry.now = lambda: 10**12
    assert registry.lookup("fastokens").name == "fastokens"
    assert asked


# ---------------------------------------------------------------- edited --config files


def _edit_keeping_size_and_times(path: Path, text: str) -> None:
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("kind", ["sh", "md"])
def test_an_edited_sglang_config_file_changes_the_result(kind: str, tmp_path: Path) -> None:
    """The file a launch's --config names is read when judging: any edit (same size, same
    mtime) is a miss, from a launcher and from a guide."""
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("tp-size: 2\n", encoding="utf-8")
    launch = SGLANG_LAUNCH.format(cfg=cfg)
    unit = tmp_path / f"run.{kind}"
    unit.write_text("#!/bin/bash\n" + launch if kind == "sh" else
                    f"# Guide\n\n```bash\n{launch}```\n", encoding="utf-8")
    first = _report([str(unit)], True)
    assert first == _report([str(unit)], False)
    _edit_keeping_size_and_times(cfg, "tp-sise: 2\n")
    edited = _report([str(unit)], True)
    assert edited == _report([str(unit)], False)
    assert edited != first
    assert any(code == "SL101" for _, _, code, _ in edited)  # the unknown key


def test_a_relative_config_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--config cfg.yaml`` is resolved against the working directory: the same launcher
    (named by its absolute path) checked from two folders reads two files."""
    unit = tmp_path / "run.sh"
    unit.write_text("#!/bin/bash\n" + SGLANG_LAUNCH.format(cfg="cfg.yaml"), encoding="utf-8")
    for name, text in (("a", "tp-size: 2\n"), ("b", "no-such-key: 2\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "cfg.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "a")
    from_a = _report([str(unit)], True)
    monkeypatch.chdir(tmp_path / "b")
    from_b = _report([str(unit)], True)
    assert from_b == _report([str(unit)], False)
    assert from_a != from_b
    monkeypatch.chdir(tmp_path / "a")
    assert _report([str(unit)], True) == from_a


def test_a_cached_result_reports_paths_as_given_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32 item 3: ``check seeds/r.sh`` from ``w/``, then ``check w/seeds/r.sh`` from
    the parent reports ``w/seeds/r.sh`` (the cache used to replay ``seeds/r.sh``)."""
    seeds = tmp_path / "w" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "r.sh").write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n",
                                encoding="utf-8")
    monkeypatch.chdir(tmp_path / "w")
    inner = _report(["seeds/r.sh"], True)
    assert {path for path, *_ in inner} == {"seeds/r.sh"}
    monkeypatch.chdir(tmp_path)
    outer = _report(["w/seeds/r.sh"], True)
    assert {path for path, *_ in outer} == {"w/seeds/r.sh"}
    assert outer == _report(["w/seeds/r.sh"], False)
    out = _cli_json(["w/seeds/r.sh"], cwd=tmp_path)
    assert {f["path"] for f in out["findings"]} == {"w/seeds/r.sh"}
    assert all(os.path.samefile(tmp_path / lr["path"], seeds / "r.sh")
               for lr in out["launches"])  # (launch summaries name the file absolutely)
