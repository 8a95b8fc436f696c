"""The pre-commit hook and the composite GitHub Action, tested as far as this machine allows."""

import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

import servelint

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Path(servelint.__file__).parent / "data" / "sarif-2.1.0.schema.json"
INPUT_REF = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def hooks():
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def action():
    return yaml.safe_load((ROOT / "action.yml").read_text())


# ---- pre-commit ---------------------------------------------------------------------------

def test_pre_commit_hook_definition():
    (hook,) = hooks()
    assert hook["id"] == "servelint" and hook["language"] == "python"
    assert hook["entry"] == "servelint check"
    # every YAML, shell and Markdown file; servelint's kind detection decides the rest
    assert hook["types_or"] == ["yaml", "shell", "markdown"] and "files" not in hook


def test_files_pre_commit_names_are_judged_by_kind_and_exclude(tmp_path, capsys):
    """Issue 17: .pre-commit-config.yaml became an SL001 note, and exclude was ignored for
    files passed by name."""
    from servelint.cli import main

    (tmp_path / ".servelint.toml").write_text('exclude = ["vendor"]\n')
    (tmp_path / ".pre-commit-config.yaml").write_text("repos:\n  - repo: local\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "run.sh").write_text("#!/bin/bash\nvllm serve m --bogus 1\n")
    (tmp_path / "README.md").write_text("# notes\n")
    (tmp_path / "run.sh").write_text("#!/bin/bash\nvllm serve m --max-model-len 8\n")
    names = [".pre-commit-config.yaml", "vendor/run.sh", "README.md", "run.sh"]
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["check", "--no-cache", "--format", "json", "--engine", "vllm==0.21.0",
                     *names])
    finally:
        os.chdir(cwd)
    report = json.loads(capsys.readouterr().out)
    # issue 32: a YAML file named but not read gets one info line saying why (exit 0)
    (note,) = report["findings"]
    assert code == 0 and note["code"] == "SL001" and note["severity"] == "info"
    assert note["path"] == ".pre-commit-config.yaml"
    assert note["message"].startswith("not checked: YAML that is no launch configuration")
    assert report["summary"]["files_checked"] == 2  # README.md and run.sh


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                    reason="pre-commit is not installed")
def test_pre_commit_try_repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "run.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "run.sh"], cwd=repo, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "servelint",
                           "--all-files", "--color", "never"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert re.search(r"^servelint\.+(Passed|Failed)$", out, re.M), out
    # the hook ran servelint itself: a finding (exit 1) is fine, a crash or usage error is not
    assert "- exit code: 2" not in out and "internal error" not in out, out


# ---- GitHub Action ------------------------------------------------------------------------

def test_action_definition():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert {"paths", "args", "upload"} <= set(spec["inputs"])
    steps = spec["runs"]["steps"]
    uses = [step["uses"] for step in steps if "uses" in step]
    # issue 32: a Python servelint runs on (>= 3.11), without touching the job's own
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False
    assert float(spec["inputs"]["python-version"]["default"]) >= 3.11
    # values pass between steps as step outputs, never through $GITHUB_ENV (zizmor: high)
    assert not any("GITHUB_ENV" in s.get("run", "") for s in steps)
    upload_step = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload_step["with"]["category"] == "${{ steps.check.outputs.category }}"
    upload = next(s for s in steps if s.get("uses", "").startswith(
        "github/codeql-action/upload-sarif@"))
    assert "sarif_file" in upload["with"] and upload["continue-on-error"] is True
    # no upload on fork pull requests, whose token lacks security-events: write
    assert "github.event.pull_request.head.repo.full_name == github.repository" in upload["if"]
    for ref in uses:  # third-party actions are pinned to a full commit
        assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", ref), ref
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert "GITHUB_ACTION_PATH" in install["run"] and "RUNNER_TEMP" in install["run"]
    assert "--constraint" in install["run"]
    constraints = (ROOT / ".github" / "action-constraints.txt").read_text().splitlines()
    pins = [line for line in constraints if line and not line.startswith("#")]
    assert pins and all(re.fullmatch(r"[\w.-]+==[\w.]+", line) for line in pins), pins


def test_action_scripts_do_not_expand_inputs_inline():
    # inputs reach scripts through env vars only (no template injection into bash)
    for step in action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def check_step():
    return next(s for s in action()["runs"]["steps"] if s.get("id") == "check")


def run_check_step(tmp_path: Path, servelint_exe: str, inputs: dict[str, str]):
    """Run the action's check step the way the runner does (bash -eo pipefail)."""
    step = check_step()
    defaults = {k: str(v.get("default", "")) for k, v in action()["inputs"].items()}
    values = {**defaults, **inputs}
    env_vars = {k: re.sub(r"\$\{\{[^}]*\}\}", "", INPUT_REF.sub(lambda m: values[m.group(1)],
                                                                str(v)))
                for k, v in step["env"].items()}  # (other steps' outputs: none here)
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    exe = bindir / "servelint"
    exe.write_text(servelint_exe)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, **env_vars, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_OUTPUT": str(output)}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc, outputs


STUB = """#!/usr/bin/env bash
printf '%s\\n' "$@" >> argv.txt
echo "@@end" >> argv.txt
for ((i = 1; i <= $#; i++)); do
  if [ "${!i}" = "-o" ]; then j=$((i + 1)); echo '{"sarif": true}' > "${!j}"; fi
done
echo "report for $*"
exit {rc}
"""


@pytest.mark.parametrize(("rc", "step_ok"), [(0, True), (1, True), (2, False)])
def test_action_check_step_with_stub(tmp_path, rc, step_ok):
    """Paths and args are lists, one item per line: spaces stay, nothing is globbed; the
    report reaches the log (text, then annotations) besides the SARIF file."""
    proc, outputs = run_check_step(tmp_path, STUB.replace("{rc}", str(rc)),
                                   {"paths": "recipes\nmy scripts/*.sh\n", "args": "--gpu\nh100"})
    assert (proc.returncode == 0) is step_ok, proc.stderr
    runs = (tmp_path / "argv.txt").read_text().split("@@end\n")[:-1]
    sarif_run = runs[0].splitlines()
    assert sarif_run == ["check", "--format", "sarif", "-o", "servelint.sarif", "--gpu", "h100",
                         "--", "recipes", "my scripts/*.sh"]
    assert (tmp_path / "servelint.sarif").read_text() == '{"sarif": true}\n'
    category = outputs.pop("category")
    assert outputs == {"sarif-file": "servelint.sarif", "exit-code": str(rc)}
    assert re.fullmatch(r"servelint/[^/]+/[^/]+/\d+", category)  # one per paths and args
    if step_ok:
        formats = [r.splitlines()[2] for r in runs]
        assert formats == ["sarif", "text", "github"]
        assert "::group::servelint report" in proc.stdout and "report for check" in proc.stdout


def test_action_check_step_with_real_servelint(tmp_path):
    """With the installed servelint: the SARIF file the action uploads is schema-valid."""
    from servelint.cli import build_parser

    if "check" not in build_parser()._subparsers._group_actions[0].choices:
        pytest.skip("servelint check is not available yet")
    (tmp_path / "run.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-8B --bogus-flag 1\n")
    real = f'#!/usr/bin/env bash\nexec {sys.executable} -m servelint.cli "$@"\n'
    proc, outputs = run_check_step(tmp_path, real, {"paths": "run.sh",
                                                    "args": "--engine\nvllm==0.27.1"})
    missing = re.search(r"No module named '(servelint\.[\w.]+)'", proc.stderr)
    if missing:  # a module another engineer has not landed yet
        pytest.skip(f"{missing.group(1)} not available yet")
    assert outputs["exit-code"] == "1", proc.stderr
    assert "SL101 flag-unknown" in proc.stdout  # the text report, in the log
    assert "::error file=run.sh,line=2" in proc.stdout  # and the annotation
    document = json.loads((tmp_path / "servelint.sarif").read_text())
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))


@pytest.mark.parametrize("arg", ["--format", "--format=json", "-o", "--diff", "--fix", "-"])
def test_action_refuses_args_that_would_break_its_own_outputs(tmp_path, arg):
    """Issue 32: ``--format json`` went into the SARIF file, ``--diff`` exited 0 on errors."""
    proc, outputs = run_check_step(tmp_path, STUB.replace("{rc}", "0"),
                                   {"paths": "run.sh", "args": f"{arg}\njson"})
    assert proc.returncode == 2 and "is set by the action itself" in proc.stdout
    assert not (tmp_path / "argv.txt").exists()


def test_action_caps_annotations_per_severity(tmp_path):
    many = "".join(f"echo '::error file=r.sh,line={n}::bad {n}'\n" for n in range(1, 15))
    stub = ("#!/usr/bin/env bash\nfor ((i = 1; i <= $#; i++)); do\n"
            "  if [ \"${!i}\" = \"-o\" ]; then j=$((i + 1)); echo '{}' > \"${!j}\"; fi\n"
            "done\ncase \"$*\" in *github*) " + many.replace("\n", "; ") + ";; esac\nexit 1\n")
    proc, _ = run_check_step(tmp_path, stub, {"paths": "r.sh", "max-annotations": "10"})
    errors = [line for line in proc.stdout.splitlines() if line.startswith("::error file=")]
    assert len(errors) == 10
    assert "::notice title=servelint::4 more annotations not shown" in proc.stdout
