"""click's parsing of trtllm-serve argv, over the committed 1.3.0rc3 profile."""

from __future__ import annotations

import pytest

from servelint import profiles
from servelint.engines.lint_parse import lint_parse
from servelint.engines.trtllm.argv import parse


@pytest.fixture(scope="module")
def prof():
    p = profiles.load("trtllm", "1.3.0rc3")
    if p is None:
        pytest.skip("no trtllm 1.3.0rc3 profile")
    return p


@pytest.mark.parametrize(
    "argv",
    [
        ["m", "--max_batch_size", "8", "--tp_size=2", "--trust_remote_code"],
        ["m", "--backend", "trt"],  # ChoiceWithAlias maps trt -> tensorrt
        ["--port", "1", "m"],  # interspersed positional
        ["m", "--tp_size", "x", "--tp_size", "2"],  # only the last occurrence is converted
        ["m", "--config", "a.yml", "--extra_llm_api_options", "b.yml"],
        ["m", "--host", "-weird"],  # a value may start with a dash
    ],
)
def test_accepted(prof, argv) -> None:
    result = parse(prof, argv)
    assert result.ok, result.click_message


@pytest.mark.parametrize(
    "argv,click_message",
    [
        (
            ["m", "--max-batch-size", "8"],
            "No such option: --max-batch-size Did you mean --max_batch_size?",
        ),
        (
            ["m", "--backend", "PyTorch"],
            "Invalid value for '--backend': 'PyTorch' is not one of "
            "'pytorch', 'tensorrt', '_autodeploy'.",
        ),
        (["m", "--port", "80.5"], "Invalid value for '--port': '80.5' is not a valid integer."),
        (["m", "--trust_remote_code=true"], "Option '--trust_remote_code' does not take a value."),
        (["m", "--port"], "Option '--port' requires an argument."),
        (["m", "extra"], "Got unexpected extra argument (extra)"),
        ([], "Missing argument 'MODEL'."),
    ],
)
def test_refused_like_click(prof, argv, click_message) -> None:
    result = parse(prof, argv)
    assert not result.ok and result.click_message == click_message


def test_lint_loop_reports_every_problem(prof) -> None:
    parsed = lint_parse(prof, ("m", "--max-batch-size", "8", "--tp-size", "2", "--port", "x"), ())
    assert [(p.index, p.kind) for p in parsed.problems] == [
        (1, "unrecognized"),
        (3, "unrecognized"),
        (6, "bad-value"),
    ]


def test_symbolic_values_are_not_judged(prof) -> None:
    parsed = lint_parse(prof, ("$MODEL", "--port", "$PORT", "--backend", "$B"), (0, 2, 4))
    assert parsed.problems == []


def test_a_leading_double_dash_belongs_to_the_group(prof) -> None:
    result = parse(prof, ["--", "m", "--port", "1"])
    assert result.ok and result.options[0].index == 2
