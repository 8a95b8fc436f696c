"""lazy_re.LazyPattern: compiled on first use, and answers as ``re.compile`` does."""

from __future__ import annotations

import re

from servelint.util.lazy_re import LazyPattern


def test_compiles_only_when_first_matched() -> None:
    pat = LazyPattern(r"(?P<word>[a-z]+)(\d+)", re.I)
    assert pat._compiled is None
    assert pat.match("Ab12").group("word") == "Ab"
    compiled = pat._compiled
    assert compiled is not None and compiled.flags & re.I
    pat.search("x1")
    assert pat._compiled is compiled  # compiled once


def test_answers_as_the_compiled_pattern() -> None:
    text = "a1 b22 ccc333 d"
    lazy, eager = LazyPattern(r"[a-z]+(\d+)"), re.compile(r"[a-z]+(\d+)")
    assert lazy.match(text).span() == eager.match(text).span()
    assert lazy.search(text, 3).span() == eager.search(text, 3).span()
    assert lazy.fullmatch("b22").group(1) == "22"
    assert lazy.fullmatch(text) is None
    assert [m.group(1) for m in lazy.finditer(text)] == ["1", "22", "333"]
    assert lazy.sub("#", text) == eager.sub("#", text)
    assert lazy.sub(lambda m: m.group(1), text, 1) == eager.sub(lambda m: m.group(1), text, 1)
