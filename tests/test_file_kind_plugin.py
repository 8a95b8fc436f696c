"""Adding a file kind is one package plus a registry line: a toy kind, written into a
temporary package here, produces command records (``servelint.launches``) and is then checked
from a file of its own and from a Markdown block, with no other change to servelint. The toy
names no engine: which engine its commands start, what an image runs and the release an image
tag names all come from the assembler and the engine registry."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from pathlib import Path

import pytest

from servelint.cli import main
from servelint.sources import registry

TOY_KIND = '''
"""Toy launch files (``*.toylaunch``): ``image: IMAGE``, ``env: NAME=VALUE`` and
``run: WORDS`` lines; a ``run`` after an ``image`` runs in that container."""

from pathlib import Path

from servelint.launches import CommandRecord, Origin, assemble
from servelint.model import EnvVar, Span, Token
from servelint.sources.base import ReadResult


def _words(path, line, column, text):
    out, at = [], 0
    for word in text.split():
        at = text.index(word, at)
        start = column + at
        out.append(Token(word, Span(path, line, start, line, start + len(word))))
        at += len(word)
    return out


def block_records(path, text, first_line):
    records, env, image = [], [], None
    for i, line in enumerate(text.splitlines()):
        key, sep, value = line.partition(":")
        if not sep:
            continue
        n, column = first_line + i, len(key) + 2  # the column just after the colon
        words = _words(path, n, column, value)
        if key == "image" and words:
            image = words[0]
        elif key == "env" and words:
            name, _, val = words[0].text.partition("=")
            env.append(EnvVar(name, val, words[0].span))
        elif key == "run" and words:
            records.append(CommandRecord(
                words=words, anchor=words[0].span, origin=Origin("toylaunch", path),
                env=list(env), image=image,
            ))
    return records


class ToyLaunchReader:
    name = "toylaunch"
    block_langs = ("toylaunch",)

    def claims(self, path, head):
        return path.suffix == ".toylaunch"

    def read(self, path, ctx):
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        result = ReadResult(deps=[path])
        for assembly in map(assemble, block_records(path, text, 1)):
            result.specs += assembly.specs
            result.problems += assembly.problems
        return result

    block_records = staticmethod(block_records)
'''

LAUNCH = "env: VLLM_NOT_A_VAR=1\nrun: vllm serve org/m --bogus-flag 1\n"
CONTAINER = "image: vllm/vllm-openai:v0.27.1\nrun: org/m --bogus-flag 1\n"


@pytest.fixture
def toykind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "toykind"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(TOY_KIND))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register(importlib.import_module("toykind").ToyLaunchReader())  # the registry line
    yield tmp_path
    registry.unregister("toylaunch")
    sys.modules.pop("toykind", None)


def _check(capsys, *args: str) -> list[tuple]:
    main(["check", *args, "--format", "json", "--no-cache", "--jobs", "1"])
    report = json.loads(capsys.readouterr().out)
    return sorted(
        (f["code"], f["line"], f["column"], f["severity"], f["release"])
        for f in report["findings"]
        if f["code"] in ("SL101", "SL121")
    )


def test_a_toy_file_is_assembled_and_judged(toykind, capsys):
    (toykind / "a.toylaunch").write_text(LAUNCH)
    found = _check(capsys, str(toykind / "a.toylaunch"), "--image", "vllm/vllm-openai:v0.27.1")
    assert found == [
        ("SL101", 2, 23, "error", "0.27.1"),  # --bogus-flag: vllm 0.27.1 has no such flag
        ("SL121", 1, 6, "warning", "0.27.1"),  # VLLM_NOT_A_VAR: not registered by 0.27.1
    ]


def test_a_toy_container_runs_its_image_entrypoint(toykind, capsys):
    # vllm/vllm-openai's entrypoint is `vllm serve` (the vLLM engine's Images.entrypoint):
    # the arguments are the model and flags, judged against the release its tag names
    (toykind / "c.toylaunch").write_text(CONTAINER)
    assert _check(capsys, str(toykind / "c.toylaunch")) == [("SL101", 2, 12, "error", "0.27.1")]


def test_a_toy_block_in_a_markdown_guide_is_judged_as_the_file(toykind, capsys):
    guide = toykind / "guide.md"
    guide.write_text("# Serving\n\n```toylaunch\n" + CONTAINER + "```\n\n```toylaunch\n"
                     + LAUNCH + "```\n")
    found = _check(capsys, str(guide))
    # the same columns as in files of their own, on the guide's lines
    assert ("SL101", 5, 12, "error", "0.27.1") in found
    assert any(f[:3] == ("SL101", 10, 23) for f in found)  # its release: the guide's pin
    assert any(f[:3] == ("SL121", 9, 6) for f in found)


def test_the_toy_kind_is_gone_once_unregistered(tmp_path, capsys):
    (tmp_path / "a.toylaunch").write_text(LAUNCH)
    assert registry.block_reader("toylaunch") is None
    assert _check(capsys, str(tmp_path / "a.toylaunch"), "--image", "vllm/vllm-openai:v0.27.1") == []
