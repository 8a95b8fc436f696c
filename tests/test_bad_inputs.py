"""No input crashes servelint: every unreadable or unparsable file is a read-error (SL001)
finding and the run goes on, through the CLI (a fresh process with a timeout) and the API.

The corpus is ``tests/cases/bad_inputs/bad_inputs.py``; big and special files are generated
in a temporary folder.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from servelint.check import Options, check_paths, check_text
from servelint.model import Finding
from servelint.sources.common.yamlpos import YamlDoc, load_yaml_text
from servelint.sources.markdown.reader import read_markdown
from servelint.sources.recipe.render import RenderResult, render
from servelint.sources.shell.script import read_script
from servelint.util.textsafe import valid_unicode

CASES_DIR = Path(__file__).parent / "cases" / "bad_inputs"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
REAL_RECIPES = [CORPUS / "vllm-recipes/models/LiquidAI/LFM2.5-1.2B-Thinking.yaml",
                CORPUS / "vllm-recipes/models/inclusionAI/Ming-omni-tts-0.5B.yaml"]
# Bounds are CPU seconds, not wall-clock: a loaded machine (CI beside other jobs) stretches
# wall time several-fold while the work done stays the same. bench/robustness.py states the
# 10 s bound on an idle machine; these catch a hang or a blow-up, not a slowdown.
API_SECONDS = 30.0  # CPU bound on one file through the whole pipeline
CLI_TIMEOUT = 300


def _load_corpus():
    spec = importlib.util.spec_from_file_location("bad_inputs", CASES_DIR / "bad_inputs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bad_inputs"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


corpus = _load_corpus()
CASES = {c.name: c for c in corpus.CASES
         if c.name != "device_symlink" or os.path.exists("/dev/zero")}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("bad_inputs")
    yield {b.case.name: b for b in corpus.build(root, list(CASES.values()))}
    subprocess.run(["rm", "-rf", str(root)], check=False)  # a 1,100-level tree: no rmtree


def _same_file(a: str, b: Path) -> bool:
    """``a`` is the case's path, or a file under it (a folder case)."""
    a, b_ = (valid_unicode(os.path.abspath(str(x))) for x in (a, b))  # JSON: U+FFFD
    return a == b_ or a.startswith(b_ + os.sep)


def _assert_expected(case, path: Path, findings: list[tuple[str, str, str]],
                     launches: int, argvs: list[list[str]] | None = None) -> None:
    """``findings``: (path, code, message) of every finding of the run; ``argvs``: the
    argv of each launch, where known."""
    mine = [(code, msg) for p, code, msg in findings if _same_file(p, path)]
    if case.count is not None:
        code, n = case.count
        assert sum(1 for c, _ in mine if c == code) == n, f"{case.name}: {mine}"
    if case.argv_has is not None and argvs is not None:
        assert any(case.argv_has in argv for argv in argvs), f"{case.name}: {argvs}"
    if case.expect is not None:
        assert any(code == "SL001" and re.search(case.expect, msg) for code, msg in mine), (
            f"{case.name}: no SL001 finding matching {case.expect!r} in {mine}")
    if case.any_code is not None:
        assert any(re.search(case.any_code, msg) for _code, msg in mine), (
            f"{case.name}: no finding matching {case.any_code!r} in {mine}")
    if case.launches is not None:
        assert launches == case.launches, f"{case.name}: {launches} launches"


def _triples(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.span.path, f.code, f.message) for f in findings]


def run_cli(paths: list[str], *extra: str, timeout: float = CLI_TIMEOUT
            ) -> tuple[int, dict, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "servelint.cli", "check", "--no-cache", "-j1", "--format", "json",
         *extra, *paths],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        errors="replace")
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "internal error" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-3000:])
    return proc.returncode, json.loads(proc.stdout), proc.stderr


# ---------------------------------------------------------------- the corpus, one file at a time


@pytest.mark.parametrize("name", sorted(CASES))
def test_api_reports_bad_input_and_returns(name: str, built: dict) -> None:
    b = built[name]
    if b.case.unprivileged and os.getuid() == 0:
        pytest.skip("permissions mean nothing to root: tested through the CLI")
    t0 = time.process_time()
    report = check_paths([str(b.path)], Options(use_cache=False, jobs=1))
    assert time.process_time() - t0 < API_SECONDS
    _assert_expected(b.case, b.path, _triples(report.findings), len(report.launches),
                     [lr.summary["argv"] for lr in report.launches])
    for f in report.findings:
        if f.code == "SL001":
            assert f.span.line >= 1 and f.span.column >= 1
            assert f.message.strip() and "Traceback" not in f.message


def test_cli_checks_every_bad_input_in_one_run_and_goes_on(built: dict) -> None:
    """All bad files in one invocation: each gets its finding, none stops the others."""
    paths = [str(b.path) for b in built.values() if not b.case.unprivileged]
    rc, out, _ = run_cli(paths)
    found = [(f["path"], f["code"], f["message"]) for f in out["findings"]]
    assert rc == 1  # unreadable files are errors
    for b in built.values():
        if b.case.unprivileged:
            continue
        launches = sum(1 for lr in out["launches"] if _same_file(lr["path"], b.path))
        _assert_expected(b.case, b.path, found, launches)


# ---------------------------------------------------------------- issue 18, one CLI run each

CLI_BOUND = 30.0  # CPU seconds per case (user + system of the child)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("name", [c.name for c in corpus.ISSUE18 if c.name in CASES])
def test_cli_issue18_case(name: str, built: dict) -> None:
    """Exit 0/1 (the stated one where given), within the bound, the finding, safe output,
    no code run from a planted cache entry."""
    b = built[name]
    case = b.case
    if case.unprivileged and os.getuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("no setpriv to drop root's permission override")
    env = {**os.environ}
    marker = corpus.plant_cache(case, b.path, env) if case.cache else None
    argv = corpus.command(case, b.path)
    if case.unprivileged:
        argv = corpus.unprivileged(argv)
    before = b.path.read_bytes() if b.path.is_file() and os.access(b.path, os.R_OK) else None
    t0 = _children_cpu()
    proc = subprocess.run(argv, capture_output=True, timeout=CLI_BOUND * 10, env=env,
                          stdin=subprocess.DEVNULL, cwd=b.path.parent if case.relative else None)
    assert _children_cpu() - t0 < CLI_BOUND
    stderr = proc.stderr.decode("utf-8", "replace")
    if before is not None:
        assert b.path.read_bytes() == before, "the input was changed"
    if case.stderr is not None:
        assert re.search(case.stderr, stderr), stderr[-2000:]
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-2000:]
    assert proc.returncode in (0, 1) or proc.returncode == case.rc == 2, (proc.returncode,
                                                                          stderr[-2000:])
    if case.rc is not None:
        assert proc.returncode == case.rc, stderr[-2000:]
    if case.safe_output:
        assert corpus.unsafe_output(case, proc.stdout) == ""
    if marker is not None:
        assert not marker.exists(), "a planted cache entry ran code"
    if not case.args:
        out = json.loads(proc.stdout)
        where = b.path.parent if case.relative else Path.cwd()
        found = [(str(where / f["path"]), f["code"], f["message"]) for f in out["findings"]]
        mine = [lr for lr in out["launches"] if _same_file(str(where / lr["path"]), b.path)]
        _assert_expected(case, b.path, found, len(mine), [lr["argv"] for lr in mine])


# the cases that once ended in exit 2, a hang or an endless read
REGRESSIONS = ["fifo_bash", "fifo_recipe", "symlink_loop", "wrong_types_master",
               "device_symlink"]


@pytest.mark.parametrize("name", [n for n in REGRESSIONS if n in CASES])
def test_cli_single_bad_input(name: str, built: dict) -> None:
    b = built[name]
    rc, out, _ = run_cli([str(b.path)], timeout=60)
    assert rc == 1
    found = [(f["path"], f["code"], f["message"]) for f in out["findings"]]
    _assert_expected(b.case, b.path, found, len(out["launches"]))


# ---------------------------------------------------------------- readers on the same text


def _regular_text(b) -> str | None:
    p = b.path
    if not p.is_file() or p.is_symlink() or p.stat().st_size > 4 * corpus.MB:
        return None
    return p.read_bytes().decode("utf-8", errors="replace")


@pytest.mark.parametrize("name", sorted(CASES))
def test_readers_on_text_never_raise(name: str, built: dict) -> None:
    b = built[name]
    text = _regular_text(b)
    if text is None:
        pytest.skip("not a regular file of checkable size")
    path = str(b.path)
    if b.path.suffix == ".yaml":
        doc = load_yaml_text(text, path)
        assert isinstance(doc, YamlDoc)
        if b.case.expect and "UTF-8" not in b.case.expect and b.case.name != "empty_recipe":
            assert doc.problems or doc.root is not None
        if b.path.parent.name == "org":
            assert isinstance(render(path), RenderResult)
    elif b.path.suffix == ".sh":
        result = read_script(path, text, time_limit=5.0)
        for spec in result.launches:
            assert all(isinstance(t.text, str) for t in spec.argv)
    elif b.path.suffix == ".md":
        result = read_markdown(path, text)
        assert isinstance(result.problems, list)


@pytest.mark.parametrize("kind,text", [
    ("yaml", "model: [unclosed\nvariants: {}\n"),
    ("yaml", "model: &a {x: *a}\nvariants: {}\n"),
    ("yaml", "\x00\x01\x02"),
    ("bash", "#!/bin/bash\n$( ( ` ' \" <<EOF\n"),
    ("bash", "\udcff"),
    ("markdown", "```bash\nvllm serve m \\\n"),
    ("markdown", "~~~\n" * 1000),
])
def test_check_text_never_raises(kind: str, text: str) -> None:
    report = check_text(text.encode("utf-8", "replace").decode("utf-8"), kind, "snippet",
                        Options(use_cache=False, jobs=1))
    assert isinstance(report.findings, list)


# ---------------------------------------------------------------- every recipe key, wrong type

REPLACEMENTS = {"int": 7, "list": [1, "x"], "map": {"a": 1}, "null": None, "string": "str"}


def _key_paths(node, prefix: tuple = ()):
    if isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return
    for key, value in items:
        yield prefix + (key,)
        yield from _key_paths(value, prefix + (key,))


def _mutants(doc: dict, max_depth: int = 99):
    for path in _key_paths(doc):
        if len(path) > max_depth:
            continue
        for label, value in REPLACEMENTS.items():
            mutant = copy.deepcopy(doc)
            node = mutant
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = copy.deepcopy(value)
            yield "/".join(map(str, path)) + f"={label}", mutant


@pytest.mark.parametrize("recipe", REAL_RECIPES, ids=lambda p: p.stem)
def test_recipe_with_any_key_of_the_wrong_type_renders_without_raising(recipe: Path,
                                                                       tmp_path: Path) -> None:
    if not recipe.is_file():
        pytest.skip("shared corpus absent")
    doc = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    folder = tmp_path / "models" / "org"
    folder.mkdir(parents=True)
    target = folder / recipe.name
    count = 0
    for label, mutant in _mutants(doc):
        target.write_text(yaml.safe_dump(mutant), encoding="utf-8")
        result = render(str(target))
        assert isinstance(result, RenderResult), label
        for rendering in result.renderings:
            assert all(isinstance(t.text, str) for t in rendering.argv), label
        count += 1
    assert count >= 5 * 40


def test_wrong_type_recipes_through_the_pipeline_and_cli(tmp_path: Path) -> None:
    """Mutants of the top two levels through every rule (API), then one CLI run."""
    recipe = REAL_RECIPES[0]
    if not recipe.is_file():
        pytest.skip("shared corpus absent")
    doc = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    folder = tmp_path / "models" / "org"
    folder.mkdir(parents=True)
    written = []
    for i, (_label, mutant) in enumerate(_mutants(doc, max_depth=2)):
        target = folder / f"m{i:03d}.yaml"
        target.write_text(yaml.safe_dump(mutant), encoding="utf-8")
        written.append(str(target))
    report = check_paths([str(folder)], Options(use_cache=False, jobs=1))
    assert sorted(report.files) == sorted(written)
    rc, out, _ = run_cli([str(folder)], "-j2")
    assert len(out["findings"]) == len(report.findings)


def test_master_config_with_any_value_of_the_wrong_type(tmp_path: Path) -> None:
    from servelint.sources.inferencex.reader import read_inferencex

    entry = {"image": "vllm/vllm-openai:v0.25.0", "model": "org/m", "model-prefix": "m",
             "runner": "b200", "precision": "fp4", "framework": "vllm", "multinode": False,
             "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024, "search-space": [
                 {"tp": 8, "ep": 8, "dp-attn": True, "conc-start": 4, "conc-end": 64}]}]}}
    (tmp_path / "configs").mkdir()
    scripts = tmp_path / "benchmarks" / "single_node" / "fixed_seq_len"
    scripts.mkdir(parents=True)
    (scripts / "m_fp4_b200.sh").write_text(
        '#!/bin/bash\nvllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs "$CONC"\n',
        encoding="utf-8")
    master = tmp_path / "configs" / "x-master.yaml"
    master.write_text(yaml.safe_dump({"e": entry}), encoding="utf-8")
    assert read_inferencex(str(master)).launches  # the unmutated entry binds and launches
    for label, mutant in _mutants({"e": entry}):
        master.write_text(yaml.safe_dump(mutant), encoding="utf-8")
        result = read_inferencex(str(master), time_limit=2.0)
        assert isinstance(result.problems, list), label
