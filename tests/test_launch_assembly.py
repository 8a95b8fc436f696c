"""One assembler for every file kind: a command is judged the same in a script and in a
Markdown guide (``tests/cases/launches/<case>.sh`` and ``<case>.md`` hold the same command
lines), and each case's findings are golden (``<case>.<suffix>.expected``, every finding at
warning or above plus the release notes, as full lines; ``--update`` rewrites them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_cases import EXPECTED_HEADER, golden_line, read_expected

from servelint.check import check_paths
from servelint.launches import CommandRecord, Origin, assemble
from servelint.model import PackageInstall, Severity, Span, Token
from servelint.sources.markdown.reader import read_markdown

CASES = Path(__file__).parent / "cases" / "launches"


def _findings(path: Path) -> list:
    report = check_paths([str(path)])
    return [
        f for f in report.findings
        if f.severity >= Severity.WARNING or f.rule == "release-unresolved"
    ]


@pytest.mark.parametrize(
    "case", sorted(p for p in CASES.iterdir() if p.suffix in {".sh", ".md"}), ids=lambda p: p.name
)
def test_launch_case(case: Path, update_golden: bool) -> None:
    got = [golden_line(f, case) for f in _findings(case)]
    expected = case.with_name(case.name + ".expected")
    if update_golden:
        header = EXPECTED_HEADER.replace(" (this rule)", "")
        expected.write_text("\n".join([header, *got]) + "\n", encoding="utf-8")
        return
    assert got == read_expected(expected)


def _line_free(path: Path) -> list[tuple]:
    """Findings without their line and path: what a script and a guide must share."""
    return sorted(
        (f.code, f.severity, f.span.column, f.message.replace("\n", " "), f.release)
        for f in _findings(path)
    )


@pytest.mark.parametrize("name", ["trtllm_line", "docker_run", "dynamo_worker"])
def test_a_guide_block_is_judged_as_the_same_lines_in_a_script(name: str) -> None:
    script, guide = _line_free(CASES / f"{name}.sh"), _line_free(CASES / f"{name}.md")
    assert script == guide
    assert any(f[0] in ("SL101", "SL151") and f[1] == Severity.ERROR for f in script), script


def test_a_launch_takes_the_pins_of_its_own_engine_only() -> None:
    sglang, vllm = read_markdown(str(CASES / "pins_per_engine.md")).launches
    assert (sglang.engine, sglang.image) == ("sglang", "lmsysorg/sglang:v0.5.9")
    assert (vllm.engine, vllm.image, vllm.release) == ("vllm", None, None)


def _tokens(text: str, line: int = 1) -> list:
    out, col = [], 1
    for word in text.split():
        out.append(Token(word, Span("k.yaml", line, col, line, col + len(word))))
        col += len(word) + 1
    return out


def test_a_documents_container_keeps_its_installs_a_hosts_docker_run_does_not() -> None:
    pip = PackageInstall("fastokens==0.1.1", "fastokens", "==0.1.1", span=Span("k.yaml", 1, 1))
    image, *args = _tokens("vllm/vllm-openai:v0.27.1 org/m --seed 1", 2)
    own = CommandRecord(args, args[0].span, Origin("k8s", "k.yaml"), image=image,
                        installs=[pip])
    (spec,) = assemble(own).specs
    assert (spec.entrypoint, spec.image, [i.name for i in spec.installs]) == (
        "vllm serve", "vllm/vllm-openai:v0.27.1", ["fastokens"])
    assert [t.text for t in spec.argv] == ["org/m", "--seed", "1"]
    words = _tokens("docker run vllm/vllm-openai:v0.27.1 org/m --seed 1", 2)
    host = CommandRecord(words, words[0].span, Origin("script", "k.yaml"), installs=[pip])
    (spec,) = assemble(host).specs
    assert (spec.image, spec.installs) == ("vllm/vllm-openai:v0.27.1", [])
