"""The text reporter's line wrapping (reporters/text.wrap): greedy, words never split."""

from __future__ import annotations

import random

from servelint.reporters.text import wrap


def _cases(n: int):
    rnd = random.Random(7)
    for _ in range(n):
        words = ["".join(rnd.choice("ab:1,") for _ in range(rnd.randint(0, 12)))
                 for _ in range(rnd.randint(0, 40))]
        prefix = rnd.choice(["", "  fix: ", "x" * rnd.randint(0, 50)])
        indent = rnd.choice(["", "    ", "x" * rnd.randint(0, 70)])
        yield prefix, " ".join(words), rnd.randint(0, 80), indent


def test_wrapped_lines_give_back_the_text_and_fill_greedily():
    for prefix, text, width, indent in _cases(20000):
        lines = wrap(prefix, text, width, indent)
        heads = [prefix] + [indent] * (len(lines) - 1)
        assert all(line.startswith(h) for line, h in zip(lines, heads, strict=True))
        bodies = [line[len(h):] for line, h in zip(lines, heads, strict=True)]
        assert " ".join(bodies) == text
        for line, body, nxt in zip(lines, bodies, bodies[1:] + [None], strict=True):
            assert len(line) <= width or " " not in body  # too long only for one word
            if nxt is not None:  # the next line's first word did not fit on this one
                assert len(line) + 1 + len(nxt.split(" ")[0]) > width


def test_a_long_list_of_places_wraps_at_the_width():
    places = ", ".join(f"{i}:{i % 80}" for i in range(3000))
    lines = wrap("  also at 3000 more places: ", places, 100, "    ")
    assert max(map(len, lines)) <= 100 and len(lines) > 200
