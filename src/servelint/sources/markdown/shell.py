"""Shell code blocks of a Markdown document -> launches, through the static bash reader.

Each block is interpreted on its own (an ``export`` in one block does not reach the next:
guides list alternatives, not one script). Before interpretation a block is prepared
without moving any word: prompts (``$ ``; ``# `` only in console blocks) become spaces,
console output lines become empty lines, and ``<PLACEHOLDER>`` words become a symbolic
``$_PLACEHOLDER`` of the same length (``<model>`` is not a redirection in a guide).
``docker run`` commands are read with :mod:`servelint.sources.docker_run.parse`; ``pip install
vllm==X`` and release-tagged images are collected as *pins* for the document.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from servelint.engines.images import image_launcher, resolve_image
from servelint.model import LaunchSpec, PackageInstall, Span, Token
from servelint.sources.common.pip import parse_pip_command
from servelint.sources.common.problems import ReadProblem
from servelint.sources.docker_run.parse import (
    SERVE_REPOSITORIES,
    container_command,
    parse_docker_run,
    run_start,
)
from servelint.sources.markdown.fences import Fence
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.launch import strip_wrappers
from servelint.sources.shell.syntax import parse_source
from servelint.sources.shell.values import Field, Piece

# placeholders a guide writes for words the reader fills in, each read as a symbolic
# ``$_WORDS`` of the same length: ``<model>``, ``<logits processor 1>``, ``{your model dir}``,
# ``{tp}``, ``[safetensors|gguf]`` (not ``${VAR}``, brace expansions ``{a,b}`` or JSON)
_PLACEHOLDER = re.compile(
    r"(?<![<\w$])<([A-Za-z][A-Za-z0-9_.:/\- ]*?[A-Za-z0-9_.])>(?![>\w])"
    r"|(?<![$\w{])\{([A-Za-z][A-Za-z0-9_ ./\-]*)\}(?![}\w])"
    r"|(?<![\w\[])\[([A-Za-z0-9_.\-]+(?:\|[A-Za-z0-9_.\-]+)+)\](?![\w\]])"
)
_PROMPT = re.compile(r"^(\s*)\$ ")
_ROOT_PROMPT = re.compile(r"^(\s*)# ")
_PS2 = re.compile(r"^(\s*)> ")


@dataclass
class Pin:
    """A release named in the document: ``pip install vllm==X`` or a release-tagged image."""

    line: int
    column: int
    image: str | None  # the image reference, for an image pin
    release: str | None  # the pip pin
    span: Span | None


def _placeholder(m: re.Match[str]) -> str:
    inner = next(g for g in m.groups() if g is not None)
    return "$_" + re.sub(r"[^A-Za-z0-9_]", "_", inner)


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
        out.append(_PLACEHOLDER.sub(_placeholder, text))
    return out


def _field(tok: Token) -> Field:
    return Field((Piece(tok.text, tok.symbolic, tok.span),), tok.span)


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
        offset = len(tokens) - len(rest)
        pip = parse_pip_command(rest)
        if pip is not None:
            self.installs_seen.extend(pip.installs)
            for inst in pip.installs:
                if (
                    inst.name == "vllm"
                    and not inst.symbolic
                    and inst.specifier.startswith("==")
                    and "," not in inst.specifier
                    and "*" not in inst.specifier
                ):
                    self._pin(inst.span, None, inst.specifier[2:])
        if len(rest) >= 3 and rest[0].text in ("docker", "podman") and rest[1].text == "pull":
            self._image_pin(rest[2])
        if run_start(rest) is None:
            super().on_command(fields, prefix, src, st, node)
            return
        self._docker(rest, fields[offset:], src, st, node)

    def _pin(self, span: Span | None, image: str | None, release: str | None) -> None:
        if span is not None:
            self.pins.append(Pin(span.line, span.column, image, release, span))

    def _image_pin(self, tok: Token) -> None:
        if not tok.symbolic and resolve_image(tok.text).release:
            self._pin(tok.span, tok.text, None)

    def _docker(self, tokens: list[Token], fields, src, st, node) -> None:  # noqa: ANN001
        run = parse_docker_run(tokens)
        if run is None or run.image is None:
            return
        self.docker_runs += 1
        self._image_pin(run.image)
        cmd = container_command(run)
        if cmd is None or not cmd.words:
            return
        if cmd.shape_error:
            self.problems.append(
                ReadProblem(
                    self.main_path,
                    cmd.shape_span or run.anchor.span,
                    cmd.shape_error,
                    "entrypoint-shape",
                )
            )
        first = len(self.launches)
        super().on_command([_field(t) for t in cmd.words], [], src, st, node)
        for spec in self.launches[first:]:
            _containerise(spec, run, cmd.assumed)


def _containerise(spec: LaunchSpec, run, assumed: str) -> None:  # noqa: ANN001
    """A launch inside ``docker run``: image, ``-e`` env only, no host pip installs."""
    if run.image is not None and not run.image.symbolic:
        spec.image, spec.image_span = run.image.text, run.image.span
    spec.env = list(run.env)
    spec.installs = []
    spec.release = spec.release_span = None
    spec.anchor = run.anchor.span or spec.anchor
    spec.context["docker"] = "run"
    if run.entrypoint is not None:
        spec.context["docker_entrypoint"] = run.entrypoint.text
    if assumed:
        spec.context["entrypoint_assumed"] = assumed
    _image_entrypoint(spec, run)


def _image_entrypoint(spec: LaunchSpec, run) -> None:  # noqa: ANN001
    """The container runs its image's own entrypoint, read per release from the release's
    Dockerfile (``engines.images.image_launcher``): the vllm/vllm-openai images up to 0.11.0
    run ``python3 -m vllm.entrypoints.openai.api_server``, not the ``vllm serve`` the
    docker run grammar puts first for that repository."""
    if run.entrypoint is not None or run.image is None or run.image.symbolic:
        return
    ref = resolve_image(run.image.text)
    if ref.repository not in SERVE_REPOSITORIES or spec.entrypoint != "vllm serve":
        return
    own = image_launcher(ref)
    if own is not None and own != spec.entrypoint:
        spec.entrypoint = own
    if run.env_files:
        spec.context["env_file"] = ",".join(t.text for t in run.env_files)


def interpret(path: str, fence: Fence, lines: list[str], *, max_steps: int = 100_000,
              time_limit: float = 3.0) -> BlockInterpreter:
    """Run one prepared block; spans are in document lines, block columns."""
    text = "\n".join(lines) + "\n"
    interp = BlockInterpreter(path, os.path.dirname(os.path.abspath(path)), max_steps,
                              time_limit)
    interp.run(parse_source(path, text.encode("utf-8", "replace"), fence.line - 1))
    return interp
