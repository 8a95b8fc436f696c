"""The results cache is never stale and never runs code: a changed dependency, setting or
planted file is never served; several processes sharing one cache give the uncached result."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from servelint.check import Options, check_paths
from servelint.model import Finding, Severity, Span
from servelint.pipeline import cache, codec
from servelint.pipeline.config import load_config_file


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(folder))
    return folder


def _report(paths: list[Path], use_cache: bool, **opts) -> list[tuple]:
    report = check_paths([str(p) for p in paths], Options(use_cache=use_cache, jobs=1, **opts))
    return sorted((f.span.path, f.span.line, f.code, f.message) for f in report.findings) + sorted(
        (lr.summary["path"], tuple(lr.summary["argv"]), tuple(lr.judged)) for lr in report.launches
    )


def _assert_cached_equals_fresh(paths: list[Path], **opts) -> list[tuple]:
    cached = _report(paths, True, **opts)
    assert cached == _report(paths, False, **opts)
    return cached


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json"))


# ---------------------------------------------------------------- staleness


def test_sourced_helper_in_a_subfolder_changes_the_result(tmp_path: Path) -> None:
    (tmp_path / "lib" / "deeper").mkdir(parents=True)
    (tmp_path / "lib" / "env.sh").write_text(
        'source "$(dirname "$0")/lib/deeper/x.sh"\n', encoding="utf-8"
    )
    helper = tmp_path / "lib" / "deeper" / "x.sh"
    helper.write_text("EXTRA=--enforce-eager\n", encoding="utf-8")
    script = tmp_path / "run.sh"
    script.write_text(
        '#!/bin/bash\nsource "$(dirname "$0")/lib/env.sh"\nvllm serve org/m $EXTRA\n',
        encoding="utf-8",
    )
    first = _assert_cached_equals_fresh([script])
    assert any("--enforce-eager" in row[1] for row in first if len(row) == 3)
    helper.write_text("EXTRA=--no-such-flag-at-all\n", encoding="utf-8")
    second = _assert_cached_equals_fresh([script])
    assert second != first and any(
        "--no-such-flag-at-all" in row[1] for row in second if len(row) == 3
    )


def _inferencex(root: Path) -> tuple[Path, Path]:
    (root / "configs").mkdir()
    scripts = root / "benchmarks" / "single_node" / "fixed_seq_len"
    scripts.mkdir(parents=True)
    launcher = scripts / "m_fp4_b200.sh"
    launcher.write_text(
        '#!/bin/bash\nvllm serve "$MODEL" --tensor-parallel-size "$TP"\n', encoding="utf-8"
    )
    master = root / "configs" / "x-master.yaml"
    master.write_text(
        json.dumps(
            {
                "e": {
                    "image": "vllm/vllm-openai:v0.25.0",
                    "model": "org/m",
                    "model-prefix": "m",
                    "runner": "b200",
                    "precision": "fp4",
                    "framework": "vllm",
                    "multinode": False,
                    "scenarios": {
                        "fixed-seq-len": [
                            {
                                "isl": 1024,
                                "osl": 1024,
                                "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 4}],
                            }
                        ]
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    return master, launcher


def test_master_config_checked_directly_sees_its_bound_launcher_change(tmp_path: Path) -> None:
    master, launcher = _inferencex(tmp_path)
    first = _assert_cached_equals_fresh([master])
    assert any(len(row) == 3 for row in first)  # the entry bound the launcher
    launcher.write_text(
        '#!/bin/bash\nvllm serve "$MODEL" --tensor-parallel-size "$TP" --no-such-flag-at-all 1\n',
        encoding="utf-8",
    )
    second = _assert_cached_equals_fresh([master])
    assert second != first


def test_config_image_mapping_changes_the_result(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --max-num-seqs 4\n", encoding="utf-8")
    config = tmp_path / ".servelint.toml"
    judged = []
    for release in ("0.21.0", "0.27.1"):
        config.write_text(f'images = {{"acme/vllm:*" = "vllm=={release}"}}\n', encoding="utf-8")
        cfg = load_config_file(config)
        rows = _assert_cached_equals_fresh([script], image="acme/vllm:prod", config=cfg)
        judged.append([row[2] for row in rows if len(row) == 3])
    assert judged[0] != judged[1]


def test_unchanged_unit_is_served_from_the_cache(
    tmp_path: Path, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n", encoding="utf-8")
    first = _report([script], True)
    assert len(_entries(cache_folder)) == 1
    import servelint.pipeline.run as check_mod

    def fail(*_a, **_k):
        raise AssertionError("checked again")

    monkeypatch.setattr(check_mod, "check_unit", fail)
    assert _report([script], True) == first


# ---------------------------------------------------------------- planted entries


class _Planted:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _plant(cache_folder: Path, script: Path, payload: bytes | None) -> None:
    _report([script], True)
    entries = _entries(cache_folder)
    assert entries
    for entry in entries:
        entry.unlink()
        if payload is None:
            os.mkfifo(entry)
        else:
            entry.write_bytes(payload)


@pytest.mark.parametrize(
    "what",
    [
        "pickle-code",
        "pickle-dict",
        "garbage",
        "fifo",
        "json-other-type",
        "json-forged-field",
        "symlink",
    ],
)
def test_planted_entry_is_a_miss_and_never_runs(
    what: str, tmp_path: Path, cache_folder: Path
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --no-such-flag 1\n", encoding="utf-8")
    fresh = _report([script], False)
    marker = tmp_path / "PWNED"
    payload: bytes | None = {
        "pickle-code": pickle.dumps(_Planted(marker)),
        "pickle-dict": pickle.dumps({"findings": []}),
        "garbage": os.urandom(4096),
        "json-other-type": json.dumps(
            {
                "format": cache.CACHE_FORMAT,
                "key": "0" * 64,
                "read": {},
                "result": codec.encode([1, 2], list[int]),
            }
        ).encode(),
    }.get(what)
    if what == "json-forged-field":
        _report([script], True)
        entry = _entries(cache_folder)[0]
        doc = json.loads(entry.read_text())
        result = doc["result"]["value"]  # a FileResult: its fields in order, findings second
        finding = result[1][0]
        finding[4] = "not a span"
        entry.write_text(json.dumps(doc))
    elif what == "symlink":
        _report([script], True)
        entry = _entries(cache_folder)[0]
        real = tmp_path / "elsewhere.json"
        real.write_bytes(entry.read_bytes())
        entry.unlink()
        entry.symlink_to(real)
    elif what == "json-other-type":
        _report([script], True)
        entry = _entries(cache_folder)[0]
        doc = json.loads(payload)
        doc["key"] = entry.stem
        entry.write_text(json.dumps(doc))
    else:
        _plant(cache_folder, script, payload)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(_report([script], True)), daemon=True)
    worker.start()
    worker.join(60)
    assert done, "the cached run hung"
    assert done[0] == fresh
    assert not marker.exists()


def test_no_pickle_in_the_cache_module() -> None:
    source = Path(cache.__file__).read_text(encoding="utf-8") + Path(codec.__file__).read_text(
        encoding="utf-8"
    )
    assert "import pickle" not in source and "pickle." not in source


def test_codec_builds_only_the_declared_types() -> None:
    span = codec.encode(Span("p", 1, 2, 3, 4), Span)
    assert span == {"strings": ["p"], "value": [0, 1, 2, 3, 4]}
    assert codec.decode(span, Span) == Span("p", 1, 2, 3, 4)
    for text in [
        '{"$t": "Popen", "f": {}}',  # the old self-describing form names nothing now
        '{"strings": ["p"], "value": [0, 1, 2, 3]}',  # a field missing
        '{"strings": ["p"], "value": [0, 1, 2, 3, 4, 5]}',  # a field too many
        '{"strings": ["p"], "value": [1, 1, 2, 3, 4]}',  # a string index out of range
        '{"strings": ["p"], "value": [-1, 1, 2, 3, 4]}',  # a negative index
        '{"strings": ["p"], "value": [0, true, 2, 3, 4]}',  # a boolean for an int
        '{"strings": ["p"], "value": [0, "1", 2, 3, 4]}',  # a string for an int
        '{"strings": [1], "value": [0, 1, 2, 3, 4]}',  # a table of non-strings
        '{"strings": ["p"], "value": [0, 1, 2, 3, 4], "more": 1}',
        "[" * 100_000,
    ]:
        with pytest.raises(codec.CodecError):
            codec.loads(text, Span)
    finding = Finding("r", "SL1", Severity.ERROR, "m", Span("p", 1, 1), renderings=["a", "b"])
    doc = codec.encode(finding, Finding)
    assert codec.decode(doc, Finding) == finding
    doc["value"][2] = 9  # no such severity
    with pytest.raises(codec.CodecError):
        codec.decode(doc, Finding)
    doc["value"][2] = True  # a boolean is no severity, though True == 1
    with pytest.raises(codec.CodecError):
        codec.decode(doc, Finding)


def test_codec_keeps_each_string_once() -> None:
    shared = [f"rendering {i}" for i in range(50)]
    findings = [
        Finding("r", "SL1", Severity.INFO, f"m{i}", Span("p", i, 1), renderings=shared)
        for i in range(20)
    ]
    doc = codec.encode(findings, list[Finding])
    assert len(doc["strings"]) == len(set(doc["strings"])) == 50 + 20 + 4  # r, SL1, p, ""
    assert codec.loads(json.dumps(doc), list[Finding]) == findings


# ---------------------------------------------------------------- processes sharing a cache


def test_processes_sharing_one_cache_give_the_uncached_result(
    tmp_path: Path, cache_folder: Path
) -> None:
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "seeds"
    if not corpus.is_dir():
        pytest.skip("shared corpus absent")
    argv = [sys.executable, "-m", "servelint.cli", "check", "--format", "json", "-j1", str(corpus)]
    env = {**os.environ, "SERVELINT_CACHE_DIR": str(cache_folder)}
    fresh = subprocess.run([*argv, "--no-cache"], capture_output=True, text=True, env=env)
    runs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=600) for p in runs]
    again = subprocess.run(argv, capture_output=True, text=True, env=env)  # all from cache
    want = _without_timing(fresh.stdout)
    for out, _err in [*outs, (again.stdout, again.stderr)]:
        assert _without_timing(out) == want
    assert _entries(cache_folder)


def _without_timing(text: str) -> dict:
    doc = json.loads(text)
    doc.get("stats", {}).pop("seconds", None)
    return doc


def test_a_served_entry_lists_the_same_launches(tmp_path: Path, cache_folder: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --max-model-len 4096 --enforce-eager\n")
    fresh = _report([script], False)
    _report([script], True)  # fills the cache
    assert _entries(cache_folder)
    served = check_paths([str(script)], Options(use_cache=True, jobs=1))
    assert [lr.summary["argv"] for lr in served.launches] == [
        ["org/m", "--max-model-len", "4096", "--enforce-eager"]
    ]
    assert _report([script], True) == fresh


def test_launches_are_read_only_when_listed(tmp_path: Path, cache_folder: Path) -> None:
    """A text run's hit leaves the launches file unread; a JSON run (``works_on``) reads it
    with the entry, and an entry whose launches file is gone or forged is a miss."""
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nvllm serve org/m --max-model-len 4096\n", encoding="utf-8")
    for works_on in (False, True):
        fresh = _report([script], False, works_on=works_on)
        _report([script], True, works_on=works_on)  # fills the cache
    launch_files = sorted(cache_folder.rglob("*.launches"))
    assert len(launch_files) == 2 and len(_entries(cache_folder)) == 2
    text_hit = check_paths([str(script)], Options(use_cache=True, jobs=1))
    assert text_hit.units[0].launches is None  # (not read: a text report never lists them)
    for forged in (None, b"{}\n{}"):
        for path in launch_files:
            path.unlink(missing_ok=True)
            if forged is not None:
                path.write_bytes(forged)
        assert _report([script], True, works_on=True) == fresh


# ---------------------------------------------------------------- the code fingerprint


def test_code_fingerprint_is_kept_while_the_package_is_unchanged(
    tmp_path: Path, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "package"
    (package / "rules").mkdir(parents=True)
    rule = package / "rules" / "r.py"
    rule.write_text("CODE = 1\n", encoding="utf-8")
    monkeypatch.setattr(cache, "_PACKAGE", package)

    def fingerprint() -> str:
        cache.forget_digests()
        return cache.code_fingerprint()

    first = fingerprint()
    assert first == cache._tree_digest(package)
    memo = cache_folder / "code.json"
    kept = json.loads(memo.read_text())
    kept["digest"] = "kept"  # what a run reads back while the stamp holds
    memo.write_text(json.dumps(kept))
    assert fingerprint() == "kept"
    time.sleep(0.05)  # past the file system's timestamp granularity
    rule.write_text("CODE = 2\n", encoding="utf-8")  # same size: the times and ctime move
    second = fingerprint()
    assert second not in ("kept", first) and second == cache._tree_digest(package)
    (package / "rules" / "new.py").write_text("", encoding="utf-8")
    assert fingerprint() not in ("kept", second)
    memo.unlink()
    memo.symlink_to(tmp_path / "elsewhere.json")  # not followed: computed again
    assert fingerprint() == cache._tree_digest(package)
