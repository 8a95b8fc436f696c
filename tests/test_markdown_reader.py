"""Golden tests of the Markdown reader: which commands, which spans, which release."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servelint.sources.markdown.fences import find_fences
from servelint.sources.markdown.reader import read_markdown
from servelint.sources.recipe.guide import read_recipe_guide

CASES = Path(__file__).parent / "cases" / "markdown"
GUIDE = str(CASES / "guide.md")


def where(tok):
    return (tok.text, tok.span.line, tok.span.column, tok.span.end_column)


@pytest.fixture(scope="module")
def guide():
    return read_markdown(GUIDE)


def test_counts(guide):
    assert (guide.blocks, guide.shell_blocks, guide.commands_found) == (8, 7, 7)
    assert guide.problems == []
    assert [s.rendering for s in guide.launches] == [
        "guide block 2", "guide block 3", "guide block 3", "guide block 4", "guide block 5",
        "guide block 7", "guide block 8"]
    assert all(s.origin == "markdown" and s.path == GUIDE for s in guide.launches)


def test_plain_fence_with_continuations_and_comment(guide):
    spec = guide.launches[0]
    assert spec.entrypoint == "vllm serve" and (spec.anchor.line, spec.anchor.column) == (13, 1)
    assert [where(t) for t in spec.argv] == [
        ("org/model-a", 13, 12, 23), ("--max-model-len", 14, 3, 18), ("8192", 14, 19, 23),
        ("--enable-prefix-caching", 15, 3, 26)]


def test_pip_pin_earlier_in_the_document_sets_the_release(guide):
    spec = guide.launches[0]
    assert spec.release == "0.21.0" and spec.image is None
    assert (spec.release_span.line, spec.release_span.column) == (7, 16)


def test_console_prompts_continuation_and_output(guide):
    b, root = guide.launches[1], guide.launches[2]
    assert [where(t) for t in b.argv] == [
        ("org/model-b", 22, 14, 25), ("--tensor-parallel-size", 23, 5, 27), ("2", 23, 28, 29)]
    assert [(e.name, e.value, e.span.line, e.span.column) for e in b.env] == [
        ("VLLM_USE_FASTOKENS", "1", 21, 10)]
    # "# " is a root prompt in a console block, and "INFO: ..." output is not a command
    assert [t.text for t in root.argv] == ["org/root-prompt", "--dtype", "half"]
    assert (root.anchor.line, root.anchor.column) == (25, 3)


def test_tilde_fence_and_api_server_entrypoint(guide):
    spec = guide.launches[3]
    assert spec.entrypoint == "python -m vllm.entrypoints.openai.api_server"
    assert where(spec.argv[1]) == ("org/model-c", 29, 57, 68)


def test_fence_indented_in_a_nested_list_and_placeholder(guide):
    spec = guide.launches[4]
    assert (spec.anchor.line, spec.anchor.column) == (36, 6)
    model = spec.argv[0]
    assert model.symbolic and where(model) == ("<your-model>", 36, 17, 29)
    assert where(spec.argv[1]) == ("--trust-remote-code", 36, 30, 49)


def test_docker_run_image_args_and_env(guide):
    spec = guide.launches[5]
    assert spec.image == "vllm/vllm-openai:v0.27.1" and spec.release is None
    assert (spec.image_span.line, spec.image_span.column) == (47, 3)
    assert (spec.anchor.line, spec.anchor.column) == (45, 1)
    assert [t.text for t in spec.argv] == ["org/model-d", "--max-num-seqs", "8"]
    assert [(e.name, e.value, e.span.line, e.span.column) for e in spec.env] == [
        ("HF_TOKEN", "abc", 46, 6)]


def test_sglang_and_python_block_ignored(guide):
    spec = guide.launches[6]
    assert spec.engine == "sglang" and spec.release is None and spec.image is None
    assert not any("org/python" in t.text for s in guide.launches for t in s.argv)


def test_nearest_pin_before_wins_else_after_else_floor(tmp_path):
    md = tmp_path / "g.md"
    md.write_text("```bash\nvllm serve a\n```\n\n```bash\npip install vllm==0.11.0\n```\n\n"
                  "```bash\nvllm serve b\n```\n\n"
                  "```bash\ndocker pull vllm/vllm-openai:v0.27.1\nvllm serve c\n```\n")
    a, b, c = read_markdown(str(md)).launches
    assert a.release == "0.11.0"  # nothing before it: the nearest pin after it
    assert b.release == "0.11.0"
    assert c.image == "vllm/vllm-openai:v0.27.1" and c.release is None
    plain = tmp_path / "p.md"
    plain.write_text("```sh\nvllm serve x\n```\n")
    (x,) = read_markdown(str(plain), floor="0.20.0").launches
    assert x.release == "0.20.0" and x.floor == "0.20.0"
    (y,) = read_markdown(str(plain)).launches
    assert y.release is None and y.image is None


def test_base_line_and_column_shift_spans(tmp_path):
    text = "```bash\nvllm serve m --dtype half\n```\n"
    (spec,) = read_markdown(str(tmp_path / "x.yaml"), text, base_line=10, base_column=3).launches
    assert (spec.anchor.line, spec.anchor.column) == (11, 3)
    assert where(spec.argv[1]) == ("--dtype", 11, 16, 23)


def test_fence_scanner_languages_and_unclosed():
    fences = find_fences("```Bash title=x\na\n```\n~~~~\nb\n~~~\n~~~~\n```python\nc\n")
    assert [(f.lang, f.line, f.lines, f.closed) for f in fences] == [
        ("bash", 2, ["a"], True), ("", 5, ["b", "~~~"], True), ("python", 9, ["c"], False)]


def test_recipe_guide_literal_block_spans_and_floor():
    path = str(CASES / "models" / "org" / "guided.yaml")
    result = read_recipe_guide(path)
    assert result.commands_found == 3 and result.problems == []
    first, docker, symbolic = result.launches
    assert first.path == path and (first.anchor.line, first.anchor.column) == (29, 3)
    assert where(first.argv[0]) == ("org/guided", 29, 14, 24)
    assert where(first.argv[2]) == ("--kv-cache-dtype", 31, 5, 21)
    assert first.floor == "0.21.0" and (first.floor_span.line, first.floor_span.column) == (6, 21)
    # the docker command inside a list item (fence indented by 2 in the guide)
    assert (docker.anchor.line, docker.anchor.column) == (43, 5)
    assert docker.image == "vllm/vllm-openai:v0.27.1"
    assert symbolic.argv[0].symbolic and "guide_compare" not in symbolic.context


def test_recipe_guide_quoted_scalar_falls_back_to_scalar_start():
    path = str(CASES / "models" / "org" / "quoted.yaml")
    (spec,) = read_recipe_guide(path).launches
    assert {(t.span.line, t.span.column) for t in spec.argv} == {(11, 8)}
    assert spec.release == "0.21.0"  # no pin in the guide: the recipe floor


def test_unreadable_and_empty(tmp_path):
    missing = read_markdown(str(tmp_path / "none.md"))
    assert missing.launches == [] and missing.problems[0].message.startswith("cannot read")
    empty = tmp_path / "e.md"
    empty.write_text("no code here\n")
    assert read_markdown(str(empty)).commands_found == 0


def test_recipe_guide_without_pin_runs_in_the_recipe_image(tmp_path):
    recipe = tmp_path / "models" / "org" / "img.yaml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text(
        "model:\n  model_id: org/img\n  min_vllm_version: \"0.11.0\"\n"
        "  docker_image: {nvidia: vllm/vllm-openai:v0.22.0, amd: vllm/vllm-openai-rocm:x}\n"
        "variants:\n  default: {precision: bf16, vram_minimum_gb: 20}\n"
        "compatible_strategies: [single_node_tp]\n"
        "guide: |\n  ```bash\n  vllm serve org/img\n  ```\n")
    (spec,) = read_recipe_guide(str(recipe)).launches
    assert spec.image == "vllm/vllm-openai:v0.22.0" and spec.release is None
    assert spec.floor == "0.11.0" and spec.image_span.line == 4


def test_legacy_config_file_next_to_the_guide_is_expanded_and_ellipsis_is_symbolic():
    config, dots = read_markdown(str(CASES / "legacy.md")).launches
    got = [(t.text, Path(t.span.path).name, t.span.line, t.span.column) for t in config.argv]
    assert got == [
        ("org/legacy", "legacy.md", 5, 12), ("--config", "legacy.md", 6, 3),
        ("Legacy_Hopper.yaml", "legacy.md", 6, 12),
        ("--no-enable-prefix-caching", "Legacy_Hopper.yaml", 1, 1),
        ("--max-num-batched-tokens", "Legacy_Hopper.yaml", 2, 1),
        ("8192", "Legacy_Hopper.yaml", 2, 25),
        ("--tensor-parallel-size", "legacy.md", 7, 3), ("1", "legacy.md", 7, 26)]
    assert dots.argv[0].text == "..." and dots.argv[0].symbolic


def test_content_less_indented_than_the_fence_keeps_exact_columns(tmp_path):
    md = tmp_path / "i.md"
    md.write_text("- item\n\n    ```bash\n    vllm serve m \\\n  --seed 1\n    ```\n")
    (spec,) = read_markdown(str(md)).launches
    assert (spec.anchor.line, spec.anchor.column) == (4, 5)
    assert where(spec.argv[1]) == ("--seed", 5, 3, 9)


def test_fence_indented_with_a_tab_in_a_list_item_is_read(tmp_path):
    # after PanZaifeng/KVFlow@7ef897e README.md ("- With config (YAML/JSON):" then a
    # tab-indented ```bash fence): it was not read, and nothing said so
    md = tmp_path / "t.md"
    md.write_text("# Serve\n- With config:\n\t```bash\n\tvllm serve m --seed 1\n\t```\n")
    (spec,) = read_markdown(str(md)).launches
    assert (spec.anchor.line, spec.anchor.column) == (4, 2)
    assert where(spec.argv[1]) == ("--seed", 4, 15, 21)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([
    "```", "~~~", "```bash", "```console", "   ```sh", "$ vllm serve m \\", "> --seed 1",
    "vllm serve <m> --x", "docker run -e A=1 vllm/vllm-openai:v0.21.0 m", "pip install vllm==0.21.0",
    "if [ x ]; then", "fi", "`", "\\", "# c", "EOF", "cat <<EOF", "'", '"', "$(", "- item"]),
    max_size=25))
def test_any_markdown_is_read_without_raising(lines):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.md"
        path.write_text("\n".join(lines))
        result = read_markdown(str(path))
    for spec in result.launches:
        assert all(t.span is None or t.span.line >= 1 for t in spec.argv)


def test_pipeline_judges_a_guide_command_at_its_pin_with_md_positions():
    from servelint import profiles
    from servelint.check import check_text

    if "0.21.0" not in profiles.available("vllm"):
        pytest.skip("no vLLM 0.21.0 profile")
    text = "Install:\n\n```bash\npip install vllm==0.21.0\n```\n\n```bash\n" \
           "vllm serve org/m --no-such-flag-xyz\n```\n"
    report = check_text(text, "markdown")
    (bad,) = [f for f in report.findings if f.rule == "flag-unknown"]
    assert (bad.span.line, bad.span.column, bad.release) == (8, 18, "0.21.0")
    assert bad.severity.label == "error"
    assert report.launches[0].judged[0].startswith("vllm 0.21.0")
