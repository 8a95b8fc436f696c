"""build_bounds: the numeric refusals of a field_validator, only from bodies of one shape."""

from __future__ import annotations

import ast
import textwrap

from servelint.builders.trtllm.build_bounds import refusals


def _fn(src: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(src)).body[0]  # type: ignore[return-value]


def test_range_and_comparisons() -> None:
    got = refusals(
        _fn(
            """
            def check(cls, v):
                "doc"
                if not 0 <= v <= 1:
                    raise ValueError("x")
                if v < -5 or v >= 100:
                    raise ValueError("y")
                return v
            """
        )
    )
    assert got == [
        {"outside": [0, 1], "ops": ["<=", "<="], "line": 5},
        {"op": "<", "value": -5, "line": 7},
        {"op": ">=", "value": 100, "line": 7},
        {"none": True, "line": 4},
    ]


def test_a_none_guard_lets_none_pass() -> None:
    got = refusals(
        _fn(
            """
            def check(cls, v):
                if v is None:
                    return v
                if v <= 0:
                    raise ValueError("x")
                return v
            """
        )
    )
    assert got == [{"op": "<=", "value": 0, "line": 6}]


def test_other_shapes_record_nothing() -> None:
    for body in (
        "if v < 0:\n    logger.warning('x')\nreturn v",  # no raise
        "if v < limit:\n    raise ValueError()\nreturn v",  # not a literal
        "if v < 0:\n    raise ValueError()\nreturn abs(v)",  # returns something else
        "for x in v:\n    if x < 0:\n        raise ValueError()\nreturn v",
        "if len(v) < 1:\n    raise ValueError()\nreturn v",
    ):
        src = "def check(cls, v):\n" + textwrap.indent(body, "    ")
        assert refusals(_fn(src)) is None, body


def test_model_validator_on_one_field() -> None:
    from servelint.builders.trtllm.build_bounds import model_refusals

    got = model_refusals(
        _fn(
            """
            def check(self):
                if self.ratio < 0 or self.ratio > 1:
                    raise ValueError(f"ratio {self.ratio}")
                return self
            """
        )
    )
    assert got == (
        "ratio",
        [
            {"op": "<", "value": 0, "line": 4},
            {"op": ">", "value": 1, "line": 4},
            {"none": True, "line": 3},
        ],
    )
    two_fields = """
        def check(self):
            if self.a < 0:
                raise ValueError(f"{self.b}")
            return self
        """
    assert model_refusals(_fn(two_fields)) is None
