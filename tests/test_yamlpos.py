"""YAML with positions: spans, YAML 1.2 scalar resolution, and bad input as values."""

from __future__ import annotations

import pytest

from servelint.sources.common.yaml_scalars import differs_in_yaml11
from servelint.sources.common.yamlpos import (
    Map,
    Scalar,
    Seq,
    at,
    load_yaml,
    load_yaml_text,
    to_python,
    yaml11_differences,
)

DOC = """\
meta:
  date_added: 2026-08-03
  tasks:
    - text
model:
  base_args:
    - "--max-model-len"
    - '4096'
  flag: yes
"""


def test_scalars_maps_sequences_and_keys_keep_spans():
    doc = load_yaml_text(DOC, "r.yaml")
    assert doc.problems == []
    root = doc.root
    assert isinstance(root, Map)
    model = root.get("model")
    assert isinstance(model, Map) and model.span.line == 6
    key = root.key_node("model")
    assert key is not None and (key.span.line, key.span.column, key.span.end_column) == (5, 1, 6)
    args = model.get("base_args")
    assert isinstance(args, Seq) and len(args) == 2
    first = args.items[0]
    assert isinstance(first, Scalar) and first.quoted
    assert (first.span.path, first.span.line, first.span.column) == ("r.yaml", 7, 7)
    assert (first.span.end_line, first.span.end_column) == (7, 24)  # end exclusive, quotes included
    assert at(root, "meta", "tasks", 0).span.line == 4
    assert at(root, "meta", "tasks", 5) is None and at(root, "model", "nope") is None


def test_site_reading_of_scalars_dates_and_yaml11_specials():
    data = to_python(load_yaml_text(DOC).root)
    assert data["meta"]["date_added"] == "2026-08-03"  # dates normalised like the site
    assert data["model"]["base_args"] == ["--max-model-len", "4096"]
    assert data["model"]["flag"] == "yes"  # YAML 1.2 (js-yaml): a string, not True
    assert differs_in_yaml11("yes") and differs_in_yaml11("0755") and not differs_in_yaml11("true")
    values = to_python(
        load_yaml_text("[1, 0x1F, 0o17, 1.5, .inf, ~, null, True, 017, 2026-13-01, !!str 12]").root
    )
    assert values[:8] == [1, 31, 15, 1.5, float("inf"), None, None, True]
    assert values[8:] == [17, "2026-13-01", "12"]


def test_keys_are_looked_up_by_their_javascript_string():
    root = load_yaml_text("tp: {8: a, true: b, null: c}").root
    tp = at(root, "tp")
    assert isinstance(tp, Map) and tp.keys() == ["8", "true", "null"]


def test_aliases_and_merge_keys_expand():
    root = load_yaml_text("a: &x {k: 1, j: 0}\nb: {<<: *x, j: 2}\nc: [*x, *x]").root
    assert to_python(root) == {
        "a": {"k": 1, "j": 0},
        "b": {"j": 2, "k": 1},
        "c": [{"k": 1, "j": 0}] * 2,
    }


@pytest.mark.parametrize(
    ("text", "kind", "needle"),
    [
        # no document: the file could not be read, an error whatever stopped it
        ("a: [1, 2\nb: 3\n", "read-error", "malformed YAML"),
        ("a: &a [*a]\n", "read-error", "recursive alias"),
        ("a: *undefined\n", "read-error", "malformed YAML"),
        ("[" * 500 + "]" * 500, "read-error", "nesting"),
    ],
)
def test_bad_text_is_a_problem_not_an_exception(text, kind, needle):
    doc = load_yaml_text(text, "x.yaml")
    assert doc.root is None
    (problem,) = doc.problems
    assert problem.kind == kind and needle in problem.message and problem.path == "x.yaml"


def test_alias_bomb_is_bounded():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(9):
        lines.append(f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join(["*" + chr(97 + i)] * 9) + "]")
    doc = load_yaml_text("\n".join(lines))
    assert doc.root is None and doc.problems[0].kind == "read-error"
    small = load_yaml_text("\n".join(lines[:3])).root
    with pytest.raises(ValueError):
        to_python(small, limit=50)


def test_duplicate_keys_warn_and_keep_the_last():
    doc = load_yaml_text("a: 1\nb: 2\na: 3\n")
    assert to_python(doc.root) == {"a": 3, "b": 2}
    (problem,) = doc.problems
    assert "duplicated mapping key 'a'" in problem.message and problem.span.line == 3


def test_files_non_utf8_missing_and_bom(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"a: 1\nb: \xff\n")
    (problem,) = load_yaml(bad).problems
    assert problem.message == "file is not valid UTF-8" and (
        problem.span.line,
        problem.span.column,
    ) == (2, 4)
    missing = load_yaml(tmp_path / "missing.yaml")
    assert missing.root is None and missing.problems[0].kind == "read-error"
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert to_python(load_yaml(bom).root) == {"a": 1}
    assert load_yaml_text("").root is None and load_yaml_text("").problems == []


def test_scalars_yaml11_reads_differently_are_flagged():
    doc = load_yaml_text("a: [yes, 0755, 1e3, 1_000, '0755', true, 2026-01-02, x]\nb: {on: 1}")
    found = [(s.value, s.yaml11_value, s.span.column) for s in yaml11_differences(doc.root)]
    assert found == [
        ("yes", True, 5),
        (755, 493, 10),
        (1000.0, "1e3", 16),
        ("1_000", 1000, 21),
        ("on", True, 5),
    ]
