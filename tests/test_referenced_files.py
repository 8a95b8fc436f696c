"""Bad content in a file a launch names is a finding on the launch line, never an internal
error (issue 14 item 5): one case per kind of referenced file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servelint.cli import main


def _check(capsys, tmp_path: Path, monkeypatch, script: str, *opts: str) -> tuple[int, dict]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "launch.sh").write_text(script)
    code = main(["check", "launch.sh", "--no-cache", "--format", "json", *opts])
    return code, json.loads(capsys.readouterr().out)


SGLANG = "python -m sglang.launch_server --model-path m --config cfg.yaml\n"


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("bad", "model-path: [unclosed\n  : : bad\n", "is not valid YAML"),
        ("binary", b"\xff\xfe\x00bad", "cannot be read"),
        ("list", "- a\n- b\n", "dictionary at root level"),
    ],
)
def test_sglang_config_file_content(capsys, tmp_path, monkeypatch, name, content, says) -> None:
    # distinct names: argv verdicts are memoised per argv text within a process
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_bytes(content) if isinstance(content, bytes) else cfg.write_text(content)
    script = SGLANG.replace("cfg.yaml", cfg.name)
    code, report = _check(capsys, tmp_path, monkeypatch, script, "--engine", "sglang==0.5.23")
    assert code == 1
    found = [f for f in report["findings"] if f["severity"] == "error"]
    assert len(found) == 1, found  # one finding, not a cascade of --config errors
    assert says in found[0]["message"] and found[0]["line"] == 1
    assert found[0]["column"] == script.index(cfg.name) + 1


def test_sglang_json_config_is_refused_once(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "cfg.json").write_text('{"tp-size": ')
    code, report = _check(
        capsys, tmp_path, monkeypatch, SGLANG.replace("yaml", "json"), "--engine", "sglang==0.5.23"
    )
    errors = [f["message"] for f in report["findings"] if f["severity"] == "error"]
    assert code == 1 and len(errors) == 1 and "must be YAML format" in errors[0]


@pytest.mark.parametrize(
    "script",
    [
        "vllm serve m --config cfg.yaml\n",  # read by path: its problem is in cfg.yaml
        "vllm serve m --chat-template tmpl.jinja\n",  # chat templates are not read
        "VLLM_PLUGINS=p vllm serve m --tool-parser-plugin plugin.py --tool-call-parser x\n",
    ],
)
def test_vllm_referenced_files_never_crash(capsys, tmp_path, monkeypatch, script) -> None:
    (tmp_path / "cfg.yaml").write_text("model: [unclosed\n")
    (tmp_path / "tmpl.jinja").write_bytes(b"{% if x %}\n{{ \xff")
    (tmp_path / "plugin.py").write_text("def broken(:\n")
    code, report = _check(capsys, tmp_path, monkeypatch, script, "--engine", "vllm==0.33.0")
    assert code in (0, 1)
    assert all(f["line"] == 1 for f in report["findings"] if f["path"] == "launch.sh")
    in_config = [f for f in report["findings"] if f["path"].endswith("cfg.yaml")]
    assert all("malformed YAML" in f["message"] for f in in_config)


def test_markdown_guide_config_file_bad_yaml(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "m_Hopper.yaml").write_bytes(b"tensor-parallel-size: [\n\xff")
    (tmp_path / "guide.md").write_text("```bash\nvllm serve m --config m_Hopper.yaml\n```\n")
    code = main(["check", "guide.md", "--no-cache", "--engine", "vllm==0.33.0"])
    capsys.readouterr()
    assert code in (0, 1)


def test_sglang_config_alias_bomb_is_one_finding(capsys, tmp_path, monkeypatch) -> None:
    # str() of every value (the release's ConfigArgumentMerger) would never finish on it
    rows = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    rows += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (tmp_path / "bomb.yaml").write_text("\n".join(rows) + "\ntp-size: *a8\n")
    script = SGLANG.replace("cfg.yaml", "bomb.yaml")
    code, report = _check(capsys, tmp_path, monkeypatch, script, "--engine", "sglang==0.5.23")
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1 and len(errors) == 1 and "through YAML aliases" in errors[0]["message"]
    assert errors[0]["column"] == script.index("bomb.yaml") + 1


def test_sglang_config_recursive_alias_is_read(capsys, tmp_path, monkeypatch) -> None:
    # str() of a recursive list ends ('[[...]]'): read and judged like any other value
    (tmp_path / "rec.yaml").write_text("served-model-name: &a [x, *a]\n")
    script = SGLANG.replace("cfg.yaml", "rec.yaml")
    code, report = _check(capsys, tmp_path, monkeypatch, script, "--engine", "sglang==0.5.23")
    assert code in (0, 1) and all(f["line"] == 1 for f in report["findings"])
    assert not any("through YAML aliases" in f["message"] for f in report["findings"])


@pytest.mark.parametrize(
    "script",
    [
        "python -m sglang.launch_server --model-path m --chat-template tmpl.jinja\n",
        "sglang serve m --chat-template tmpl.jinja --tool-call-parser qwen25\n",
        "python -m sglang.launch_server --model-path m --json-model-override-args @o.json\n",
    ],
)
def test_sglang_referenced_files_never_crash(capsys, tmp_path, monkeypatch, script) -> None:
    (tmp_path / "tmpl.jinja").write_bytes(b"{% if x %}\n{{ \xff")
    (tmp_path / "o.json").write_text('{"unclosed": ')
    code, report = _check(capsys, tmp_path, monkeypatch, script, "--engine", "sglang==0.5.23")
    assert code in (0, 1)
    assert all(f["line"] == 1 for f in report["findings"])


def test_markdown_guide_sglang_config_bad_yaml(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVELINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "s.yaml").write_bytes(b"tp-size: [\n\xff")
    guide = "```bash\npython -m sglang.launch_server --model-path m --config s.yaml\n```\n"
    (tmp_path / "guide.md").write_text(guide)
    code = main(
        ["check", "guide.md", "--no-cache", "--engine", "sglang==0.5.23", "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1 and len(errors) == 1 and errors[0]["line"] == 2
