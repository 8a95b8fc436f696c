"""Shell code blocks of a Markdown document -> launches, through the static bash reader.

Each block is interpreted on its own (an ``export`` in one block does not reach the next:
guides list alternatives, not one script). Before interpretation a block is prepared
without moving any word: prompts (``$ ``; ``# `` only in console blocks) become spaces,
console output lines become empty lines, and ``<PLACEHOLDER>`` words become a symbolic
``$_PLACEHOLDER`` of the same length (``<model>`` is not a redirection in a guide;
:mod:`servelint.sources.common.placeholders`).
``docker run`` commands are read with :mod:`servelint.sources.docker_run.parse`; ``pip install
vllm==X`` and release-tagged images are collected as *pins* for the document.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from servelint.engines import registry
from servelint.engines.images import resolve_image
from servelint.launches.recognise import strip_wrappers
from servelint.model import PackageInstall, Span, Token
from servelint.sources.common.pip import parse_pip_command
from servelint.sources.common.placeholders import mask
from servelint.sources.common.problems import ReadProblem
from servelint.sources.docker_run.parse import parse_docker_run
from servelint.sources.markdown.fences import Fence
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.syntax import ParseTimeout, parse_source

_PROMPT = re.compile(r"^(\s*)\$ ")
_ROOT_PROMPT = re.compile(r"^(\s*)# ")
_PS2 = re.compile(r"^(\s*)> ")


@dataclass
class Pin:
    """A release named in the document: ``pip install ENGINE==X`` or a release-tagged image."""

    line: int
    column: int
    image: str | None  # the image reference, for an image pin
    release: str | None  # the pip pin
    span: Span | None
    engine: str = ""  # the engine it names a release of
    prose: bool = False  # named in the text: pins only the commands after it


def _package_engines() -> dict[str, str]:
    """Distribution name -> the engine whose release its ``==`` pin names."""
    return {e.package: e.name for e in registry.engines() if e.package}


def prepare(fence: Fence) -> list[str]:
    """The block's lines ready for the bash reader, each word at its original column."""
    out: list[str] = []
    continued = False
    for line in fence.lines:
        text = line
        if fence.is_console:
            m = _PROMPT.match(text) or _ROOT_PROMPT.match(text)
            if m:
                text = m.group(1) + "  " + text[m.end() :]
            elif continued:
                p = _PS2.match(text)
                if p:
                    text = p.group(1) + "  " + text[p.end() :]
            else:
                text = ""  # command output
        else:
            m = _PROMPT.match(text)
            if m:
                text = m.group(1) + "  " + text[m.end() :]
        continued = text.rstrip().endswith("\\") and bool(text.strip())
        out.append(mask(text))
    return out


class BlockInterpreter(Interpreter):
    """The bash reader's interpreter, plus ``docker run`` launches and release pins."""

    def __init__(self, path: str, root: str, max_steps: int = 100_000,
                 time_limit: float = 3.0) -> None:
        super().__init__(path, root, None, max_states=8, max_steps=max_steps,
                         time_limit=time_limit)
        self.pins: list[Pin] = []
        self.docker_runs = 0
        self.installs_seen: list[PackageInstall] = []  # every pip/uv install line, in order

    def on_command(self, fields, prefix, src, st, node) -> None:  # noqa: ANN001
        tokens = [f.token() for f in fields]
        rest, _, _ = strip_wrappers(tokens)
        pip = parse_pip_command(rest)
        if pip is not None:
            self.installs_seen.extend(pip.installs)
            engines = _package_engines()
            for inst in pip.installs:
                if (
                    inst.name in engines
                    and not inst.symbolic
                    and inst.specifier.startswith("==")
                    and "," not in inst.specifier
                    and "*" not in inst.specifier
                ):
                    self._pin(inst.span, None, inst.specifier[2:], engines[inst.name])
        if len(rest) >= 3 and rest[0].text in ("docker", "podman") and rest[1].text == "pull":
            self._image_pin(rest[2])
        run = parse_docker_run(rest)
        if run is not None and run.image is not None:
            self.docker_runs += 1
            self._image_pin(run.image)
        super().on_command(fields, prefix, src, st, node)

    def _pin(
        self, span: Span | None, image: str | None, release: str | None, engine: str
    ) -> None:
        if span is not None:
            self.pins.append(Pin(span.line, span.column, image, release, span, engine))

    def _image_pin(self, tok: Token) -> None:
        if tok.symbolic:
            return
        ref = resolve_image(tok.text)
        if ref.release:
            self._pin(tok.span, tok.text, None, ref.engine)


def interpret(path: str, fence: Fence, lines: list[str], *, max_steps: int = 100_000,
              time_limit: float = 3.0) -> BlockInterpreter:
    """Run one prepared block; spans are in document lines, block columns."""
    text = "\n".join(lines) + "\n"
    interp = BlockInterpreter(path, os.path.dirname(os.path.abspath(path)), max_steps,
                              time_limit)
    try:
        src = parse_source(path, text.encode("utf-8", "replace"), fence.line - 1)
    except ParseTimeout as exc:
        interp.problems.append(ReadProblem(path, Span(path, fence.line, 1), str(exc)))
        return interp
    interp.run(src)
    return interp
