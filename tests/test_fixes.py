"""--fix / --diff / --unsafe-fixes: golden before/after cases, the edit engine, the CLI.

A case is tests/cases/fixes/<name>.before.<ext> (first line: ``servelint-test:`` options as
in the rule cases, plus ``unsafe=on``) and <name>.after.<ext>, the file after ``--fix``.
``pytest tests/test_fixes.py --update`` rewrites the after files (review the diff).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from test_rule_cases import case_options

from servelint import profiles
from servelint.check import check_paths
from servelint.cli import main
from servelint.fixes.edits import apply_fixes
from servelint.fixes.session import checker, run_fixes
from servelint.model import Edit, Fix, FixSafety, Span

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).parent / "cases" / "fixes"
CORPUS = ROOT.parent / "shared" / "corpus"


def _cases() -> list[Path]:
    return sorted(CASES.glob("*.before.*"))


def _fix(path: Path, unsafe: bool) -> tuple[int, str]:
    options = case_options(path)

    run, _ = run_fixes(checker(options), [str(path)], unsafe=unsafe, write=True)
    return run.fixed, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name.split(".before")[0])
def test_fix_case(case: Path, tmp_path: Path, update_golden: bool) -> None:
    if not profiles.available("vllm"):
        pytest.skip("no committed profiles")
    name, ext = case.name.split(".before")
    work = tmp_path / f"{name}{ext}"
    shutil.copyfile(case, work)
    unsafe = "unsafe=on" in case.read_text(encoding="utf-8").splitlines()[0]
    fixed, text = _fix(work, unsafe)
    expected = CASES / f"{name}.after{ext}"
    if update_golden:
        expected.write_text(text, encoding="utf-8")
        return
    assert fixed, "the case must exercise at least one fix"
    assert text == expected.read_text(encoding="utf-8")
    again, text2 = _fix(work, unsafe)
    assert (again, text2) == (0, text), "a second --fix must change nothing"


# ---- the edit engine -----------------------------------------------------------------------


def _edit(line: int, col: int, end: int, new: str, old: str = "") -> Fix:
    return Fix((Edit(Span("f", line, col, line, end), new, old),), FixSafety.SAFE, "d")


def test_overlapping_fixes_keep_the_first():
    text = "vllm serve m --max-model 1\n"
    first, second = _edit(1, 14, 25, "--max-model-len"), _edit(1, 16, 25, "--x")
    out, applied, skipped = apply_fixes(text, [first, second])
    assert out == "vllm serve m --max-model-len 1\n"
    assert applied == [first] and [fix for fix, _ in skipped] == [second]


def test_old_text_missing_makes_the_fix_inapplicable():
    out, applied, skipped = apply_fixes("a --b\n", [_edit(1, 3, 6, "--c", old="--z")])
    assert out == "a --b\n" and not applied and len(skipped) == 1


def test_a_deletion_never_cuts_into_a_quoted_string():
    text = 'args: ["--a", "--b"]\n'
    out, applied, _ = apply_fixes(text, [_edit(1, 16, 20, "", old="--b")], yaml=True)
    assert out == text and not applied


def test_dropping_the_last_continued_line_removes_the_dangling_backslash():
    text = "vllm serve m \\\n  --tp 1 \\\n  --gone\necho done\n"
    out, _, _ = apply_fixes(text, [_edit(3, 3, 9, "", old="--gone")])
    assert out == "vllm serve m \\\n  --tp 1\necho done\n"


def test_dropping_a_yaml_env_entry_removes_its_line_and_keeps_comments():
    text = 'extra_env:\n  # speeds up tokenization\n  VLLM_USE_FASTOKENS: "1"  # why\nx: 1\n'
    out, _, _ = apply_fixes(text, [_edit(3, 3, 21, "")], yaml=True)
    assert out == "extra_env:\n  # speeds up tokenization\nx: 1\n"


# ---- files and the command line -----------------------------------------------------------

BAD = "# servelint-test: engine=vllm==0.21.0\nvllm serve Qwen/Qwen3-8B --max-model 4096\n"


def test_diff_writes_nothing_and_exits_1(tmp_path, capsys):
    path = tmp_path / "l.sh"
    path.write_text(BAD)
    assert main(["check", str(path), "--engine", "vllm==0.21.0", "--diff", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "-vllm serve Qwen/Qwen3-8B --max-model 4096" in out
    assert "+vllm serve Qwen/Qwen3-8B --max-model-len 4096" in out
    assert path.read_text() == BAD


def test_fix_writes_atomically_keeps_the_mode_and_exits_on_what_remains(tmp_path, capsys):
    path = tmp_path / "l.sh"
    path.write_text(BAD)
    os.chmod(path, 0o750)
    assert main(["check", str(path), "--engine", "vllm==0.21.0", "--fix", "--no-cache"]) == 0
    assert path.read_text() == BAD.replace("--max-model ", "--max-model-len ")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["l.sh"]  # no temporary file left
    assert "fixed 1 finding in 1 file" in capsys.readouterr().err
    assert main(["check", str(path), "--engine", "vllm==0.21.0", "--diff", "--no-cache"]) == 0


def test_a_file_with_read_problems_is_never_fixed(tmp_path):
    path = tmp_path / "l.sh"
    data = BAD.encode() + b"echo caf\xff\n"
    path.write_bytes(data)
    # not valid UTF-8: a read error, which fails the run (issue 18), and the file is untouched
    assert main(["check", str(path), "--engine", "vllm==0.21.0", "--fix", "--no-cache"]) == 1
    assert path.read_bytes() == data


def test_unsafe_fixes_need_the_flag(tmp_path):
    path = tmp_path / "l.sh"
    text = "vllm serve Qwen/Qwen3-8B --disable-log-requests\n"
    path.write_text(text)
    assert main(["check", str(path), "--engine", "vllm==0.21.0", "--fix", "--no-cache"]) == 1
    assert path.read_text() == text
    main(["check", str(path), "--engine", "vllm==0.21.0", "--fix", "--unsafe-fixes", "--no-cache"])
    assert path.read_text() == "vllm serve Qwen/Qwen3-8B\n"


# ---- the recipes corpus: a fixed file against its expected form ---------------------------


def test_corpus_recipe_fixed_keeps_comments(tmp_path):
    source = CORPUS / "vllm-recipes" / "models" / "Qwen" / "Qwen3-8B.yaml"
    if not source.exists():
        pytest.skip("corpus not beside the checkout")
    work = tmp_path / "models" / "Qwen" / "Qwen3-8B.yaml"
    work.parent.mkdir(parents=True)
    shutil.copyfile(source, work)
    before = work.read_text(encoding="utf-8")

    run, _ = run_fixes(checker(case_options(work)), [str(work)], unsafe=False, write=True)
    after = work.read_text(encoding="utf-8")
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    assert changed == [('  min_vllm_version: "0.8.5"', '  min_vllm_version: "0.11.1"')]
    assert [ln for ln in after.splitlines() if ln.lstrip().startswith("#")] == [
        ln for ln in before.splitlines() if ln.lstrip().startswith("#")
    ]


def test_rules_emit_only_the_fix_safety_the_registry_declares():
    from servelint.rules import registry

    rank = {FixSafety.NONE: 0, FixSafety.UNSAFE: 1, FixSafety.SAFE: 2}
    paths = [str(p) for p in _cases()] + [str(ROOT / "tests" / "cases" / "rules")]
    seen = set()
    for path in paths:
        for f in check_paths(
            [path],
            case_options(Path(path)) if path.endswith(tuple(".sh .yaml .md".split())) else None,
        ).findings:
            if f.autofix is None:
                continue
            declared = registry.get(f.code).fix
            assert declared is not FixSafety.NONE, f"{f.code} declares no fix but made one"
            assert rank[f.autofix.safety] <= rank[declared], f.code
            seen.add(f.code)
    assert {"SL101", "SL103", "SL104", "SL123", "SL131", "SL141"} <= seen
