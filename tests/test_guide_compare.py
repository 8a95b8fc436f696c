"""Guide command vs the recipe's rendering: the flags the reader attaches (sources/recipe/
guide_flags.py) and the comparison of the guide-drift rule (SL191)."""

from pathlib import Path

from servelint.check import check_paths
from servelint.model import Token
from servelint.rules.guide_drift import compare, drifts
from servelint.sources.recipe.guide import read_recipe_guide
from servelint.sources.recipe.guide_flags import IGNORED, fold_dotted, split_argv

RECIPE = str(Path(__file__).parent / "cases" / "markdown" / "models" / "org" / "guided.yaml")


def items(*words: str):
    return split_argv([Token(w) for w in words])


def flags(its, ignored=frozenset()):
    return {it.key: (it.value, it.span) for it in its if it.key not in IGNORED | ignored}


def test_split_model_flags_values_and_negatives():
    model, its = items(
        "org/m",
        "--max_num_seqs",
        "4",
        "--no-enable-prefix-caching",
        "--seed=-1",
        "--x",
        "-1",
        "--flag",
    )
    assert model.text == "org/m"
    assert [(i.key, i.value) for i in its] == [
        ("--max-num-seqs", "4"),
        ("--enable-prefix-caching", "false"),
        ("--seed", "-1"),
        ("--x", "-1"),
        ("--flag", None),
    ]
    model, _ = items("--model", "org/n", "--dtype", "half")
    assert model.text == "org/n"


def test_dotted_keys_fold_into_json():
    _, guide = items(
        "m",
        "--speculative-config.method",
        "mtp",
        "--speculative-config.num_speculative_tokens",
        "3",
    )
    _, recipe = items("m", "--speculative-config", '{"num_speculative_tokens": 3, "method": "mtp"}')
    assert compare(flags(fold_dotted(guide)), flags(fold_dotted(recipe))) == []


def test_compare_kinds_and_noise_policy():
    _, guide = items(
        "m",
        "--a",
        "1",
        "--b",
        "--tensor-parallel-size",
        "8",
        "--port",
        "1",
        "--max-model-len",
        "100",
        "--served-model-name",
        "x",
    )
    _, recipe = items("m", "--a", "2", "--c", "--tensor-parallel-size", "1", "--hw", "z")
    found = compare(flags(guide, {"--hw"}), flags(recipe, {"--hw"}))
    assert [(d.kind, d.flag, d.guide, d.recipe) for d in found] == [
        ("value", "--a", "1", "2"),
        ("extra", "--b", None, None),
        ("missing", "--c", None, None),
    ]


def test_feature_left_out_entirely_is_off_but_half_a_feature_is_reported():
    group = {"--enable-auto-tool-choice", "--tool-call-parser"}
    _, recipe = items("m", "--enable-auto-tool-choice", "--tool-call-parser", "hermes")
    _, none = items("m")
    _, half = items("m", "--enable-auto-tool-choice")
    assert compare(flags(none), flags(recipe), groups=[group]) == []
    assert [(d.kind, d.flag) for d in compare(flags(half), flags(recipe), groups=[group])] == [
        ("missing", "--tool-call-parser")
    ]


def test_guide_matched_to_variant_by_served_id():
    first, docker, symbolic = read_recipe_guide(RECIPE).launches
    label, found = drifts(first.context)
    assert label.startswith("default · ")
    assert [(d.kind, d.flag, d.guide, d.recipe) for d in found] == [
        ("value", "--kv-cache-dtype", "auto", "fp8"),
        ("extra", "--seed", "7", None),
    ]
    value = found[0]
    assert (value.span.line, value.span.column) == (31, 5)
    assert (value.recipe_span.line, value.recipe_span.column) == (7, 38)
    # fp8 variant: --moe-backend comes from a hardware override, so it is not compared
    label, found = drifts(docker.context)
    assert label.startswith("fp8 · ") and found == []
    assert "guide_compare" not in symbolic.context  # a symbolic model: nothing to compare


def test_rule_reports_through_the_pipeline():
    report = check_paths([RECIPE])
    drift = [f for f in report.findings if f.rule == "guide-drift"]
    assert [(f.code, f.severity.label, f.span.line, f.span.column) for f in drift] == [
        ("SL191", "warning", 31, 5),
        ("SL191", "warning", 35, 5),
    ]
    assert drift[0].message == (
        'guide command sets --kv-cache-dtype to "auto" but the '
        "recipe's rendering (default · h100 · single_node_tp) sets "
        '"fp8"'
    )
    assert drift[0].related[0].line == 7
    assert drift[1].message.startswith("guide command sets --seed 7, which the recipe's")
