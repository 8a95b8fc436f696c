"""The read-phase shortcuts give what the plain computation gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from servelint.model import Span, Token
from servelint.sources.recipe.text import kept_indexes
from servelint.sources.shell.expand import assemble
from servelint.sources.shell.values import Piece


def _units_dedupe(texts: list[str]) -> list[int]:
    """Last-wins dedupe written out unit by unit (recipe-format.md 5.5)."""
    units: list[list[int]] = []
    i = 0
    while i < len(texts):
        pair = texts[i].startswith("-") and i + 1 < len(texts) and \
            not texts[i + 1].startswith("-")
        units.append([i, i + 1] if pair else [i])
        i += 2 if pair else 1
    last = {texts[u[0]]: n for n, u in enumerate(units) if texts[u[0]].startswith("-")}
    return [i for n, u in enumerate(units)
            if not texts[u[0]].startswith("-") or last[texts[u[0]]] == n for i in u]


@given(st.lists(st.sampled_from(["--a", "--b", "-c", "1", "x", "--a=2", "-5"]), max_size=14))
def test_kept_indexes_matches_unit_dedupe(texts: list[str]) -> None:
    assert kept_indexes(texts) == _units_dedupe(texts)


def test_kept_indexes_keeps_all_when_no_flag_repeats() -> None:
    assert kept_indexes(["--a", "1", "pos", "--b", "--c", "x"]) == [0, 1, 2, 3, 4, 5]
    assert kept_indexes(["--a", "1", "--a", "2"]) == [2, 3]


def test_assemble_one_literal_piece() -> None:
    word, hint = Span("f", 1, 1, 1, 5), Span("f", 1, 2, 1, 4)
    assert [(f.text, f.span) for f in assemble([(Piece("abc"), None)], word)] == [("abc", word)]
    assert [(f.text, f.span) for f in assemble([(Piece("abc"), hint)], word)] == [("abc", hint)]
    # an empty literal is still one (empty) word; a splittable one is split on whitespace
    assert [f.pieces for f in assemble([(Piece(""), None)], word)] == [()]
    split = assemble([(Piece("a b", splittable=True), None)], word)
    assert [f.text for f in split] == ["a", "b"]


def test_shared_tokens_are_not_copied_per_call() -> None:
    from servelint.sources.common.yamlpos import load_yaml_text
    from servelint.sources.recipe.nodes import str_list

    doc = load_yaml_text("args: [--x, '$HOST', 0, '']\n")
    seq = doc.root.get("args")  # type: ignore[union-attr]
    first, second = str_list(seq), str_list(seq)
    assert [t.text for t in first] == ["--x", "$HOST"]
    assert [t.symbolic for t in first] == [False, True]
    assert first is not second and all(a is b for a, b in zip(first, second, strict=True))
    assert isinstance(first[0], Token)
