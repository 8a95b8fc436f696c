"""Issue 32: daily use as a recipes or InferenceX maintainer meets it — counts that mean
something, no silent pass on named input, no value accepted without a word."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from servelint import profiles
from servelint.cli import main

CASES = Path(__file__).parent / "cases"
RECIPE = CASES / "fix_safety" / "floor-adds-error.yaml"


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, " ".join(out.split()), err  # (the text report wraps its lines)


def test_a_checkout_counts_the_files_it_read(capsys):
    """An InferenceX checkout is one unit: it said "1 file checked" for hundreds."""
    code, out, _ = run(capsys, "--format", "json", str(CASES / "inferencex" / "mini"))
    assert json.loads(out)["summary"]["files_checked"] == 9


def test_stdin_recipe_without_a_name_is_told_by_its_content(capsys, monkeypatch):
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    text = RECIPE.read_text(encoding="utf-8")
    code, out, _ = run(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert "--guided-decoding-backend" in out and "1 file checked" in out  # read as a recipe


def test_stdin_text_of_no_kind_asks_for_a_name(capsys, monkeypatch):
    code, out, err = run(capsys, "-", stdin="hello world\n", monkeypatch=monkeypatch)
    assert code == 2 and "--stdin-filename" in err and out == ""


@pytest.mark.parametrize(("text", "why"), [
    ("", "not checked: the file is empty"),
    ("a: [1, 2\n", "not checked: not valid YAML (line 2)"),
    ("name: foo\n", "not checked: YAML that is no launch configuration"),
])
def test_a_named_yaml_that_is_not_read_gets_a_line(tmp_path, capsys, text, why):
    path = tmp_path / "named.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert code == 0 and f"named.yaml:1:1: info[SL001 read-error] {why}" in out


def test_a_named_recipe_without_launches_gets_a_line(tmp_path, capsys):
    path = tmp_path / "models" / "org" / "x.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("model: {model_id: org/x}\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert "not checked: read, but it holds no launch" in out
