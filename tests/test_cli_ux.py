"""The command line as people use it (issue 17): strict values, selection, quieter output.

Each test names the friction it guards; on the code before the issue each one failed
(a typo exited 0, a flag did not exist, or the output said something else).
"""

import io
import json
import sys

import pytest

from servelint.cli import main

ERROR_AND_WARNING = "#!/bin/bash\nvllm serve m --bogus 1 --max-model 4096\n"
WARNINGS_ONLY = "#!/bin/bash\nvllm serve m --max-model 4096\n"


@pytest.fixture
def script(tmp_path):
    def write(text: str = ERROR_AND_WARNING, name: str = "launch.sh") -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- strict values: exit 2 with one line, never a silent fallback ---------------------------


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--target-version", "vllm==0.33"], "no profile for vllm 0.33 (servelint knows vllm"),
        (["--target-version", "vllm==9.9"], "nearest: 0.33.0,"),
        (["--engine", "foo==1"], 'unknown engine "foo"; known engines: '),
        (["--engine", "vllm==0.21"], "nearest: 0.21.0,"),
        (["--engine", "vllm0.21.0"], "expected ENGINE==VERSION"),
        (["--gpu", "xyz123"], 'unknown gpu "xyz123"; known: a100,'),
        (["--gpu", "b3000"], 'unknown gpu "b3000"; did you mean "b300"?'),
        (["-j", "-1"], "-j/--jobs: must be 0 (one per core) or a positive count, got -1"),
        (["--select", "flag-unknwn"], '--select: unknown rule "flag-unknwn"; did you mean'),
        (["--ignore", "SL777"], '--ignore: unknown rule "SL777"'),
    ],
)
def test_bad_values_exit_2_with_one_line(capsys, script, argv, reason):
    code, out, err = run(capsys, script(), *argv)
    assert code == 2 and out == ""
    assert reason in err and err.count("\n") == 1 and "internal error" not in err


def test_config_refuses_the_gpu_the_command_line_refuses(tmp_path, capsys, script):
    (tmp_path / ".servelint.toml").write_text('gpu = "b3000"\n', encoding="utf-8")
    code, _, err = run(capsys, script())
    assert code == 2 and 'unknown gpu "b3000"; did you mean "b300"?' in err


def test_output_into_a_missing_directory_is_a_usage_error(capsys, script, tmp_path):
    code, _, err = run(capsys, script(), "-o", str(tmp_path / "missing" / "x.json"))
    assert code == 2 and err.startswith("servelint: -o/--output: no directory")
    assert "internal error" not in err


def test_good_values_are_canonicalised(capsys, script):
    code, out, _ = run(capsys, script(), "--engine", "VLLM==0.21.0", "--gpu", "H100")
    assert code == 1 and "judged against vllm 0.21.0" in out


# ---- selection, severity threshold, quiet, statistics -------------------------------------


def test_select_and_ignore_by_code_prefix_and_name(capsys, script):
    path = script()
    _, out, _ = run(capsys, path, "--engine", "vllm==0.21.0", "--format", "json", "--select", "SL1")
    assert {f["code"] for f in json.loads(out)["findings"]} == {"SL101", "SL103"}
    code, out, _ = run(
        capsys,
        path,
        "--engine",
        "vllm==0.21.0",
        "--format",
        "json",
        "--select",
        "flag-unknown,flag-abbreviated",
        "--ignore",
        "SL101",
    )
    assert [f["code"] for f in json.loads(out)["findings"]] == ["SL103"] and code == 0


def test_fail_on_warning(capsys, script):
    path = script(WARNINGS_ONLY)
    assert run(capsys, path, "--engine", "vllm==0.21.0")[0] == 0
    assert run(capsys, path, "--engine", "vllm==0.21.0", "--fail-on", "warning")[0] == 1


def test_min_severity_never_says_no_problems_while_hiding_warnings(capsys, script):
    code, out, _ = run(
        capsys, script(WARNINGS_ONLY), "--engine", "vllm==0.21.0", "--min-severity", "error"
    )
    assert code == 0 and "no problems" not in out
    assert out == (
        "no errors in 1 file checked; 1 warning hidden (below --min-severity); "
        "judged against vllm 0.21.0\n"
    )


def test_config_min_severity_is_counted_too(tmp_path, capsys, script):
    (tmp_path / ".servelint.toml").write_text('min-severity = "error"\n', encoding="utf-8")
    code, out, _ = run(capsys, script(WARNINGS_ONLY), "--engine", "vllm==0.21.0")
    assert code == 0 and out.startswith(
        "no errors in 1 file checked; 1 warning hidden (below min-severity in the config)")
    _, out, _ = run(capsys, script(WARNINGS_ONLY), "--engine", "vllm==0.21.0",
                    "--format", "json")
    assert json.loads(out)["findings"] == []  # hidden in every format, as before


def test_info_is_behind_show_info_in_text(capsys, script):
    path = script(WARNINGS_ONLY)  # nothing pinned: a release-unresolved note (info)
    _, out, _ = run(capsys, path)
    assert "SL142" not in out and "1 info hidden (--show-info shows them)" in out
    _, out, _ = run(capsys, path, "--show-info")
    assert "info[SL142 release-unresolved]" in out
    _, out, _ = run(capsys, path, "--format", "json")  # machine output keeps every finding
    # (an unpinned launch is judged over its range too: the abbreviation warning is there)
    assert [f["code"] for f in json.loads(out)["findings"]] == ["SL142", "SL103"]


def test_quiet_prints_findings_only(capsys, script):
    code, out, _ = run(capsys, script(), "--engine", "vllm==0.21.0", "-q")
    assert code == 1 and "checked" not in out and "SL101" in out
    assert (
        run(capsys, script(WARNINGS_ONLY), "-q", "--engine", "vllm==0.21.0", "--select", "SL101")[1]
        == ""
    )


def test_statistics(capsys, script):
    _, out, _ = run(capsys, script(), "--engine", "vllm==0.21.0", "--statistics")
    assert out.splitlines()[:2] == [
        "1  SL101  flag-unknown (error)",
        "1  SL103  flag-abbreviated (warning)",
    ]


@pytest.mark.parametrize(("choice", "colored"), [("always", True), ("never", False)])
def test_color_option(capsys, script, choice, colored, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run(capsys, script(), "--engine", "vllm==0.21.0", "--color", choice)
    assert ("\x1b[" in out) is colored


# ---- standard input ------------------------------------------------------------------------


def test_dash_reads_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(ERROR_AND_WARNING))
    code, out, _ = run(
        capsys, "-", "--stdin-filename", "deploy/launch.sh", "--engine", "vllm==0.21.0"
    )
    assert code == 1
    assert "deploy/launch.sh:2:14: error[SL101 flag-unknown]" in out
    assert "  2 | vllm serve m --bogus 1 --max-model 4096" in out  # the excerpt from stdin
    assert "no such file" not in out and "servelint-stdin" not in out


def test_stdin_filename_needs_dash(capsys, script):
    code, _, err = run(capsys, script(), "--stdin-filename", "x.sh")
    assert code == 2 and "--stdin-filename needs - among the paths" in err


# ---- output volume -------------------------------------------------------------------------


def test_one_release_unresolved_note_per_file(capsys, script):
    text = "#!/bin/bash\nvllm serve a\nvllm serve b\nvllm serve c\n"
    _, out, _ = run(capsys, script(text), "--format", "json")
    notes = [f for f in json.loads(out)["findings"] if f["code"] == "SL142"]
    assert len(notes) == 1
    assert notes[0]["message"].startswith("3 launches in this file: ")
    assert [r["line"] for r in notes[0]["related"]] == [3, 4]


def test_read_problems_say_what_to_do(capsys, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n", encoding="utf-8")
    _, out, _ = run(capsys, str(bad), str(tmp_path / "gone.sh"), "--format", "json")
    fixes = {f["message"][:20]: f["fix"] for f in json.loads(out)["findings"]}
    assert all(fixes.values()) and len(fixes) == 2
    assert "--stdin-filename" in fixes["servelint does not k"]


def test_version_names_the_profile_data(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("servelint ") and out[1] == "profiles:"
    assert any(line.startswith("  vllm 0.10.0 … ") and "builder 1" in line for line in out)
    assert any(line.startswith("  sglang ") for line in out)


def test_python_dash_m_runs_the_same_command_line() -> None:
    """The README's commands use ``python -m servelint`` (pip's script folder may not be on
    PATH): it must run the CLI and keep its exit codes."""
    import subprocess

    ok = subprocess.run([sys.executable, "-m", "servelint", "--version"], capture_output=True)
    assert ok.returncode == 0 and b"servelint" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "servelint", "chek"], capture_output=True)
    assert bad.returncode == 2
