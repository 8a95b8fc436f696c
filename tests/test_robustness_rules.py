"""Issue 33's rules of robustness, one test each: one bounded YAML loader, a deadline on the
bash parse, linear scans, per-file budgets, bash's 64-bit arithmetic, NUL bytes, safe ``-o``.
(The CLI cases, timed, are in the bad-input corpus: tests/cases/bad_inputs/bad_inputs.py.)"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
import yaml

from servelint import profiles
from servelint.engines.argparse_emul import OptionTable
from servelint.model import LaunchSpec, Span, Token
from servelint.pipeline.options import Options
from servelint.pipeline.unit import judge_specs
from servelint.reporters.report_file import ReportFile, ReportFileError, refuse
from servelint.sources.common.yaml_bounded import (
    YamlBudgetError,
    compose_bounded,
    safe_load_bounded,
)
from servelint.sources.markdown.reader import read_markdown
from servelint.sources.shell import syntax
from servelint.sources.shell.continuation import continuation_problems
from servelint.sources.shell.script import read_script
from servelint.util import budget
from servelint.util.textsafe import nul_bytes

SRC = Path(__file__).resolve().parents[1] / "src" / "servelint"
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


def test_every_yaml_load_goes_through_the_bounded_loader() -> None:
    """No module but the two loaders calls PyYAML's loaders (the profile builders, which read
    wheels at build time, aside)."""
    direct = re.compile(r"yaml\.(safe_load|load|compose|full_load|unsafe_load)\(|"
                        r"get_single_node\(\)")
    allowed = {"sources/common/yamlpos.py", "sources/common/yaml_bounded.py",
               "engines/trtllm/option_file.py"}  # (the last: budget checked on its node)
    offenders = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("builders/") or rel in allowed:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if direct.search(line) and not line.lstrip().startswith("#"):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert not offenders, offenders


def test_alias_bomb_is_refused_before_it_expands() -> None:
    t0 = time.process_time()
    with pytest.raises(YamlBudgetError, match="aliases"):
        safe_load_bounded(BOMB)
    with pytest.raises(YamlBudgetError):
        compose_bounded(BOMB)
    assert time.process_time() - t0 < 2
    assert safe_load_bounded("a: &x [1, 2]\nb: *x\non: yes\n") == {
        "a": [1, 2], "b": [1, 2], True: True}  # YAML 1.1, as the engines read it


def test_a_bomb_in_a_written_vllm_config_is_a_read_error() -> None:
    body = "\n".join("  " + line for line in BOMB.splitlines())
    script = f"#!/bin/bash\ncat > c.yaml <<'EOF'\nkv:\n{body}\nEOF\nvllm serve org/m --config c.yaml\n"
    result = read_script("x.sh", script)
    assert len(result.launches) == 1
    assert any(p.kind == "read-error" and "aliases" in p.message for p in result.problems)


def test_a_parse_past_its_deadline_is_a_read_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "PARSE_SECONDS", 0.0)
    result = read_script("x.sh", "#!/bin/bash\n" + "echo hi\n" * 20_000 + "vllm serve m\n")
    assert [(p.kind, p.message) for p in result.problems] == [
        ("read-error", "the bash parser did not finish within 0 s: not read")]
    guide = read_markdown("g.md", "# G\n\n```bash\n" + "echo hi\n" * 20_000 + "vllm serve m\n```\n")
    assert any("did not finish" in p.message for p in guide.problems)
    monkeypatch.setattr(syntax, "PARSE_SECONDS", 5.0)
    assert len(read_script("x.sh", "#!/bin/bash\nvllm serve org/m\n").launches) == 1  # reset


def test_continuation_scan_is_linear_in_blank_lines() -> None:
    def seconds(blanks: int) -> float:
        lines = ["vllm serve m \\", *[""] * blanks, "--x 1"]
        t0 = time.process_time()
        continuation_problems("x.sh", lines, lambda i, c: Span("x.sh", i + 1, c))
        return time.process_time() - t0

    assert seconds(80_000) < 2.0  # quadratic: over 60 s
    found = continuation_problems("x.sh", ["vllm serve m", "", "", "  --x 1"],
                                  lambda i, c: Span("x.sh", i + 1, c))
    assert [p.span.line for p in found] == [1]  # the next non-blank line is still seen


def test_option_prefix_lookup_matches_the_linear_scan() -> None:
    table = OptionTable(profiles.load("vllm", "0.21.0"))

    def linear(arg: str) -> list[str]:
        if arg.startswith("--"):
            prefix = arg.split("=", 1)[0]
            return [s for s in table.strings if s.startswith(prefix)]
        return [s for s in table.strings if s == arg[:2] or s.startswith(arg)]

    for arg in ["--max", "--max-num", "--enable-", "--tensor", "--x=1", "-t", "-tp", "--",
                "-", "--no-such"]:
        assert [s for _, s, _ in table.option_tuples(arg)] == linear(arg), arg


def test_judging_stops_at_the_file_budget_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_JUDGED_ARGV_WORDS", 10)
    spec = [LaunchSpec(engine="vllm", entrypoint="vllm serve", path="x.sh",
                       anchor=Span("x.sh", n, 1),
                       argv=[Token("org/m", None), Token("--max-num-seqs", None),
                             Token("4", None)]) for n in (1, 2, 3, 4, 5)]
    found, launches = judge_specs(spec, Options(use_cache=False, jobs=1,
                                                engine="vllm==0.21.0"))
    assert len(launches) == 3
    notes = [f for f in found if "judging budget" in f.message]
    assert len(notes) == 1 and notes[0].span.line == 4
    assert "the 1 after it" in notes[0].message


@pytest.mark.parametrize("expr,bash", [
    ("(1<<62)*4", "0"), ("2**64", "0"), ("2**63", "-9223372036854775808"),
    ("9223372036854775807+1", "-9223372036854775808"), ("7/-2", "-3"),
    ("-9223372036854775808/-1", "-9223372036854775808"), ("3**2", "9"),
])
def test_arithmetic_wraps_at_64_bits_as_bash_does(expr: str, bash: str) -> None:
    """Expected values from bash 5.2 (``echo $(( expr ))``)."""
    result = read_script("x.sh", f"#!/bin/bash\nvllm serve org/m --x $(( {expr} ))\n")
    assert result.launches[0].argv[-1].text == bash


def test_nul_bytes_and_utf16_without_a_bom() -> None:
    assert nul_bytes(b"plain text") is None
    assert nul_bytes(b"vllm serve m --x\x00y")[1] is False
    assert nul_bytes("vllm serve org/m\n".encode("utf-16-le"))[1] is True
    assert nul_bytes("vllm serve org/m\n".encode("utf-16-be"))[1] is True


def test_utf16_script_without_a_bom_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "u.sh"
    path.write_bytes("#!/bin/bash\nvllm serve org/m\n".encode("utf-16-le"))
    result = read_script(str(path))
    assert not result.launches
    assert [p.kind for p in result.problems] == ["read-error"]
    assert "UTF-16" in result.problems[0].message


# ---------------------------------------------------------------- -o


def test_output_refusals(tmp_path: Path) -> None:
    src = tmp_path / "x.sh"
    src.write_text("#!/bin/bash\n", encoding="utf-8")
    with pytest.raises(ReportFileError, match="one of the files"):
        refuse(src, [str(src)])
    with pytest.raises(ReportFileError, match="one of the files"):
        refuse(tmp_path / "." / "x.sh", [str(src)])
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ReportFileError, match="symlink"):
        refuse(link, [str(src)])
    with pytest.raises(ReportFileError, match="directory"):
        refuse(tmp_path, [str(src)])
    refuse(tmp_path / "new.txt", [str(src)])  # a new file is fine


def test_output_is_replaced_only_when_complete(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    out.write_text("old\n", encoding="utf-8")
    report = ReportFile(out)
    report.stream.write("new\n")
    assert out.read_text(encoding="utf-8") == "old\n"  # not yet
    report.commit()
    assert out.read_text(encoding="utf-8") == "new\n"
    failed = ReportFile(out)
    failed.stream.write("half")
    failed.discard()
    assert out.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]  # no temp left


def test_output_fifo_without_reader_and_full_disk(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    with pytest.raises(ReportFileError, match="FIFO"):
        ReportFile(fifo)
    assert time.perf_counter() - t0 < 2
    if os.path.exists("/dev/full"):
        report = ReportFile(Path("/dev/full"))
        with pytest.raises(ReportFileError, match="No space left"):
            report.stream.write("x" * 100_000)
            report.commit()
        report.discard()


def test_yaml_error_types_are_kept() -> None:
    with pytest.raises(yaml.YAMLError):
        safe_load_bounded("a: [unclosed\n")
