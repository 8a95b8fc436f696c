"""Guide command vs the recipe's rendering, and the guide-drift rule (SL191)."""

from pathlib import Path

from servelint.check import check_paths
from servelint.model import Token
from servelint.sources.recipe.guide import read_recipe_guide
from servelint.sources.recipe.guide_compare import compare, drifts_of, fold_dotted, split_argv

RECIPE = str(Path(__file__).parent / "cases" / "markdown" / "models" / "org" / "guided.yaml")


def items(*words: str):
    return split_argv([Token(w) for w in words])


def test_split_model_flags_values_and_negatives():
    model, its = items("org/m", "--max_num_seqs", "4", "--no-enable-prefix-caching",
                       "--seed=-1", "--x", "-1", "--flag")
    assert model.text == "org/m"
    assert [(i.key, i.value) for i in its] == [
        ("--max-num-seqs", "4"), ("--enable-prefix-caching", "false"), ("--seed", "-1"),
        ("--x", "-1"), ("--flag", None)]
    model, _ = items("--model", "org/n", "--dtype", "half")
    assert model.text == "org/n"


def test_dotted_keys_fold_into_json():
    _, guide = items("m", "--speculative-config.method", "mtp",
                     "--speculative-config.num_speculative_tokens", "3")
    _, recipe = items("m", "--speculative-config", '{"num_speculative_tokens": 3, "method": "mtp"}')
    assert compare(fold_dotted(guide), fold_dotted(recipe)) == []


def test_compare_kinds_and_noise_policy():
    _, guide = items("m", "--a", "1", "--b", "--tensor-parallel-size", "8", "--port", "1",
                     "--max-model-len", "100", "--served-model-name", "x")
    _, recipe = items("m", "--a", "2", "--c", "--tensor-parallel-size", "1", "--hw", "z")
    drifts = compare(guide, recipe, ignored={"--hw"})
    assert [(d.kind, d.flag, d.guide, d.recipe) for d in drifts] == [
        ("value", "--a", "1", "2"), ("extra", "--b", None, None), ("missing", "--c", None, None)]


def test_feature_left_out_entirely_is_off_but_half_a_feature_is_reported():
    group = {"--enable-auto-tool-choice", "--tool-call-parser"}
    _, recipe = items("m", "--enable-auto-tool-choice", "--tool-call-parser", "hermes")
    _, none = items("m")
    _, half = items("m", "--enable-auto-tool-choice")
    assert compare(none, recipe, groups=[group]) == []
    assert [(d.kind, d.flag) for d in compare(half, recipe, groups=[group])] == [
        ("missing", "--tool-call-parser")]


def test_guide_matched_to_variant_by_served_id():
    first, docker, symbolic = read_recipe_guide(RECIPE).launches
    assert first.context["guide_rendering"].startswith("default · ")
    assert [(d.kind, d.flag, d.guide, d.recipe) for d in drifts_of(first)] == [
        ("value", "--kv-cache-dtype", "auto", "fp8"), ("extra", "--seed", "7", None)]
    value = drifts_of(first)[0]
    assert (value.span.line, value.span.column) == (31, 5)
    assert (value.recipe_span.line, value.recipe_span.column) == (7, 38)
    # fp8 variant: --moe-backend comes from a hardware override, so it is not compared
    assert docker.context["guide_rendering"].startswith("fp8 · ")
    assert drifts_of(docker) == []
    assert "guide_drift" not in symbolic.context


def test_rule_reports_through_the_pipeline():
    report = check_paths([RECIPE])
    drift = [f for f in report.findings if f.rule == "guide-drift"]
    assert [(f.code, f.severity.label, f.span.line, f.span.column) for f in drift] == [
        ("SL191", "warning", 31, 5), ("SL191", "warning", 35, 5)]
    assert drift[0].message == ('guide command sets --kv-cache-dtype to "auto" but the '
                                "recipe's rendering (default · h100 · single_node_tp) sets "
                                '"fp8"')
    assert drift[0].related[0].line == 7
    assert drift[1].message.startswith("guide command sets --seed 7, which the recipe's")
