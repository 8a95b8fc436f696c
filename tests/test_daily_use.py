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


def test_a_master_config_counts_the_launchers_it_bound(capsys):
    """The examples (a master config, the launcher it binds, a recipe, a guide) said "3
    files checked (1 inferencex, …)": the bound launcher was checked but not counted."""
    examples = Path(__file__).parent.parent / "examples"
    code, out, _ = run(capsys, str(examples))
    assert "in 4 files checked (2 inferencex, 1 markdown, 1 recipe)" in out


def test_files_not_read_are_said_not_counted_by_kind(tmp_path, capsys):
    """Two named YAML files no reader read and a recipe said "1 file checked (2 none, 1
    recipe)": the kinds counted what the count did not."""
    (tmp_path / "other.yaml").write_text("name: foo\n", encoding="utf-8")
    (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
    recipe = tmp_path / "models" / "org" / "r.yaml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text(RECIPE.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(capsys, *(str(tmp_path / n) for n in ("other.yaml", "empty.yaml")),
                       str(recipe))
    assert "in 1 file checked;" in out and "2 none" not in out
    assert out.count("info[SL001 read-error] not checked") == 2


def test_stdin_recipe_without_a_name_is_told_by_its_content(capsys, monkeypatch):
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    text = RECIPE.read_text(encoding="utf-8")
    code, out, _ = run(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert "--guided-decoding-backend" in out and "1 file checked" in out  # read as a recipe
    assert "guide block 1" in out  # its guide read too: the fences inside make no Markdown


def test_stdin_recipe_with_a_guide_is_a_recipe_not_markdown():
    from servelint.commands.stdin_input import kind_by_content

    text = "model:\n  model_id: m\nguide: |\n  ```bash\n  vllm serve m\n  ```\n"
    assert kind_by_content(text) == "models/stdin/stdin.yaml"
    assert kind_by_content("# Serving\n```bash\nvllm serve m\n```\n") == "stdin.md"
    assert kind_by_content("vllm serve m --max-model-len 8\n") == "stdin.sh"
    assert kind_by_content("hello world\n") is None


def test_stdin_text_of_no_kind_asks_for_a_name(capsys, monkeypatch):
    code, out, err = run(capsys, "-", stdin="hello world\n", monkeypatch=monkeypatch)
    assert code == 2 and "--stdin-filename" in err and out == ""


def test_stdin_messages_never_name_the_temporary_copy(capsys, monkeypatch):
    """A launcher on stdin sourcing a helper said "not found inside /tmp/servelint-stdin-…",
    a folder the user never saw."""
    text = '#!/bin/bash\nsource "$(dirname "$0")/../lib.sh"\nvllm serve org/model\n'
    code, out, _ = run(capsys, "--show-info", "-", stdin=text, monkeypatch=monkeypatch)
    assert "servelint-stdin-" not in out
    assert "sourced file '<standard input's folder>/../lib.sh' not found" in out


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


def _launcher(tmp_path: Path) -> str:
    path = tmp_path / "run.sh"
    path.write_text("#!/bin/bash\nvllm serve org/model\n", encoding="utf-8")
    return str(path)


def test_fix_counts_what_is_left_as_a_check_of_the_written_files(tmp_path, capsys):
    """``--fix`` reported each place of a cause apart (the recipes corpus: 130 warnings
    left, where a check of the fixed files says 60): what is left is counted as check
    counts it."""
    for name in ("a.sh", "b.sh"):  # one cause (an unknown variable) in two files
        (tmp_path / name).write_text(
            "#!/bin/bash\nexport VLLM_NOT_A_REAL_VAR=1\nvllm serve org/model --disable-log-requests\n",
            encoding="utf-8")
    image = ("--image", "vllm/vllm-openai:v0.21.0")
    _, fixed, _ = run(capsys, *image, "--fix", str(tmp_path))
    _, checked, _ = run(capsys, *image, str(tmp_path))
    assert "2 errors, 1 warning, 0 info in 2 files checked" in checked
    assert fixed == checked


def test_a_misspelt_image_repository_is_refused_with_the_near_one(tmp_path, capsys):
    code, _, err = run(capsys, "--image", "vllm/vllm-opnai:v0.21.0", _launcher(tmp_path))
    assert code == 2 and 'did you mean "vllm/vllm-openai"?' in err


def test_a_mirror_of_a_known_image_is_accepted(tmp_path, capsys):
    code, out, err = run(capsys, "--image", "myorg/vllm-openai:v0.21.0", _launcher(tmp_path))
    assert code == 0 and "judged against vllm 0.21.0" in out and err == ""


def test_an_image_of_no_engine_gets_a_visible_note(tmp_path, capsys):
    code, _, err = run(capsys, "--image", "nginx:latest", _launcher(tmp_path))
    assert code == 0 and 'note: --image "nginx:latest" names no engine image' in err


def test_an_image_of_another_engine_gets_a_visible_note(tmp_path, capsys):
    """An SGLang image for a ``vllm serve`` launcher left the launch judged on no release,
    said only by a hidden info, and the run passed."""
    code, out, err = run(capsys, "--image", "lmsysorg/sglang:v0.5.6", _launcher(tmp_path))
    assert 'note: --image "lmsysorg/sglang:v0.5.6" is a sglang image; the vllm launches' in err
    assert "judged against" not in out


@pytest.mark.parametrize("image", ["myorg/inference:1.0", "nginx:latest"])
def test_an_image_of_no_known_engine_is_judged_as_a_build_of_the_launch_engine(
        tmp_path, capsys, image):
    """An image servelint does not know running ``vllm serve`` was judged on no release
    ("cannot check the release", hidden), though the note said the launch was judged:
    it is now judged as ``myorg/vllm-prod:1.0`` is, a build of the engine the command
    starts whose release is a guess (no errors)."""
    path = tmp_path / "run.sh"
    path.write_text(f"#!/bin/bash\ndocker run {image} vllm serve org/model --bogus-flag 1\n",
                    encoding="utf-8")
    code, out, _ = run(capsys, "--show-info", str(path))
    assert code == 0 and "judged against vllm 0.33.0" in out
    assert 'info[SL101 flag-unknown] unknown flag "--bogus-flag" for vllm 0.33.0' in out
    assert f"image {image} is no vllm image servelint knows" in out


def test_a_target_version_of_another_engine_is_said_and_the_launch_still_judged(
        tmp_path, capsys):
    if not profiles.available("sglang"):
        pytest.skip("no committed profiles")
    code, out, err = run(capsys, "--target-version", "sglang==0.5.14", _launcher(tmp_path))
    assert "applies to sglang launches; no launch checked here is sglang's" in err
    assert "judged against vllm 0.33.0" in out


def test_a_bare_target_version_is_vllms_as_in_the_config_file(tmp_path, capsys):
    code, out, _ = run(capsys, "--target-version", "0.21.0", _launcher(tmp_path))
    assert code == 0 and "judged against vllm 0.21.0" in out


def test_a_bare_target_version_of_another_engine_offers_that_engine(tmp_path, capsys):
    """``--target-version 0.5.6`` (an SGLang release) said only that vLLM has no 0.5.6."""
    if not profiles.available("sglang"):
        pytest.skip("no committed profiles")
    code, _, err = run(capsys, "--target-version", "0.5.6", _launcher(tmp_path))
    assert code == 2 and "a bare version is vllm's: did you mean \"sglang==0.5.6\"?" in err


def test_profile_show_and_render_offer_the_near_name(capsys):
    assert main(["profile", "show", "vlm", "0.21.0"]) == 2
    assert 'unknown engine "vlm"; did you mean "vllm"?' in capsys.readouterr().err
    assert main(["render", str(RECIPE), "--hardware", "h10"]) == 2
    assert "unknown hardware 'h10'; did you mean \"h100\"?" in capsys.readouterr().err


def test_works_on_shows_in_text_output(capsys):
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    code, out, _ = run(capsys, "--works-on", str(RECIPE))
    assert "works on (each launch checked on every release):" in out
    assert "9 launches pass on vllm 0.17.0 … 0.33.0 (25 releases)" in out


def test_works_on_paths_print_as_the_findings_do(tmp_path, capsys, monkeypatch):
    """A launch path inside the working folder prints relative, as a finding's path does
    (an InferenceX launcher's path comes absolute from its reader)."""
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.sh").write_text("#!/bin/bash\nvllm serve m --max-model-len 4096\n")
    code, out, _ = run(capsys, "--works-on", str(tmp_path / "launch.sh"))
    assert "release): launch.sh: 1 launch passes on vllm" in out  # (run() joins the lines)


def test_select_shows_the_selected_info_rule(capsys):
    code, out, _ = run(capsys, "--select", "SL142", str(RECIPE))
    assert "info[SL142 release-unresolved]" in out and "hidden" not in out


def test_text_output_wraps_long_paths_shows_cwd_paths_relative_and_points_to_explain(
        tmp_path, capsys, monkeypatch):
    folder = tmp_path / ("a-rather-long-folder-name-of-a-checkout" * 2) / "launchers"
    folder.mkdir(parents=True)
    script = folder / "benchmark-launcher-with-a-long-name.sh"
    script.write_text("#!/bin/bash\nvllm serve org/model --no-such-flag-here 1\n")
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", str(script)])  # absolute, inside the working folder
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert not any(str(tmp_path) in line for line in lines)
    assert all(len(line) <= 100 for line in lines if not line.startswith(("a-", "── a-")))
    assert lines[-1].startswith("about a rule: servelint explain CODE (SL101")
    assert "docs/rules/" not in out


def test_a_shell_branch_join_reads_as_words():
    from servelint.sources.shell.flows import join_flows

    assert "flows joined" not in Path(join_flows.__code__.co_filename).read_text()


def test_readme_first_command_makes_a_venv_and_ci_runs_the_readmes_commands():
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```bash\n")
    first, second = blocks[1].split("\n```")[0], blocks[2].split("\n```")[0]
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install .")
    assert first.endswith("servelint check examples/")
    assert second.startswith("pip install '.[test]'")
    assert "exits 1 on purpose" in readme
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    # .ci/run reads the commands from the README itself: they cannot drift apart
    assert "awk '/^```bash$/" in ci and 'bash -c "${COMMANDS[0]}"' in ci
    assert "pip install" not in ci
