"""Markdown guides: the launch commands people copy from fenced code blocks.

``read_markdown`` finds fenced blocks (backticks or tildes, any indentation, language
bash/sh/shell/console/none), prepares them (prompts, console output, placeholders; see
``markdown_shell``) and hands each block to the static bash reader, which finds ``vllm
serve``, ``python -m vllm.entrypoints.openai.api_server`` and ``python -m
sglang.launch_server`` launches; ``docker run IMAGE ARGS`` launches are read with the
image's entrypoint shape (``docker_run``). Every span points into the Markdown file (or,
for a recipe's ``guide:`` string, into the recipe YAML).

Release of a command: its own image or same-block ``pip install vllm==X``; else the
nearest pin (release-tagged image or ``pip install vllm==X``) before it in the document,
else the nearest one after it; else, for a recipe guide, the recipe's own NVIDIA
``docker_image`` when it sets one; else ``floor`` (a recipe's ``min_vllm_version``); else
none, and the pipeline says it cannot check the release.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from servelint.engines import registry
from servelint.launches import assemble, config_file_value, expand_config_file
from servelint.model import EnvVar, LaunchSpec, ReleaseFrom, Span, Token
from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.common.placeholders import mark as mark_placeholders
from servelint.sources.common.placeholders import spelling
from servelint.sources.common.problems import ReadProblem
from servelint.sources.dispatch import block_reader
from servelint.sources.markdown.doc_context import DocContext, prose_before
from servelint.sources.markdown.env_mentions import attach, inline_names
from servelint.sources.markdown.fences import Fence, find_fences, worth_reading
from servelint.sources.markdown.prose_installs import (
    block_comment_installs,
    doc_span,
    prose_installs,
)
from servelint.sources.markdown.prose_pins import ProseFloor, prose_floors, prose_pins
from servelint.sources.markdown.shell import Pin, interpret, prepare
from servelint.sources.shell.continuation import continuation_problems
from servelint.util import budget
from servelint.util.textsafe import nul_bytes

if TYPE_CHECKING:  # the shell interpreter is imported for a block worth reading only
    from servelint.sources.markdown.shell import BlockInterpreter, Pin

MAX_BYTES = 4 * 1024 * 1024
_ELLIPSES = {"...", "…", "[...]", "<...>"}
_YOURS = re.compile(r"(?i)(?:^|[/_\-=.])your(?:[_\-/.]|$)|^(?:x{3,}|\.\.\.)$")
# bash-reader problem kinds that are noise in a Markdown snippet (not a script)
_SNIPPET_NOISE = {"parse-error", "budget", "unresolved", "unsupported"}


@dataclass(slots=True, eq=False)
class MarkdownResult:
    """The launches of one Markdown document, its problems and what was scanned (filled as
    the document is read)."""

    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    commands_found: int = 0  # launch commands found (docker runs without a launch excluded)
    blocks: int = 0  # fenced blocks seen
    shell_blocks: int = 0  # blocks handed to the bash reader


class _Mapper:
    """Block coordinates (document line, column in the de-indented line) -> file span."""

    def __init__(
        self, path: str, fence: Fence, base_line: int, base_column: int, fixed: Span | None
    ) -> None:
        self.path, self.fence = path, fence
        self.base_line, self.base_column, self.fixed = base_line, base_column, fixed

    def _col(self, line: int, col: int) -> int:
        i = line - self.fence.line
        strip = self.fence.strip[i] if 0 <= i < len(self.fence.strip) else self.fence.indent
        return self.base_column - 1 + strip + col

    def span(self, span: Span | None) -> Span | None:
        if span is None:
            return None
        if span.path and span.path != self.path:
            return span  # a line of another file (an option file the launch names)
        if self.fixed is not None:
            return self.fixed
        end_line = span.end_line if span.end_line is not None else None
        return Span(
            self.path,
            self.base_line - 1 + span.line,
            self._col(span.line, span.column),
            None if end_line is None else self.base_line - 1 + end_line,
            None
            if span.end_column is None or end_line is None
            else self._col(end_line, span.end_column),
        )

    def token(self, tok: Token) -> Token:
        # "..." / "…" stand for words the guide leaves out, "your-model" / "/path/to/your/dir"
        # for words the reader fills in: never judged as values
        symbolic = tok.symbolic or tok.text in _ELLIPSES or bool(_YOURS.search(tok.text))
        return Token(spelling(tok, self.fence.lines, self.fence.line), self.span(tok.span), symbolic)

    def spec(self, spec: LaunchSpec) -> None:
        spec.path = self.path
        spec.anchor = self.span(spec.anchor) or spec.anchor
        spec.argv = [self.token(t) for t in spec.argv]
        spec.env = [EnvVar(e.name, e.value, self.span(e.span), e.symbolic) for e in spec.env]
        spec.image_span = self.span(spec.image_span)
        spec.release_span = self.span(spec.release_span)
        spec.installs = [replace(i, span=self.span(i.span)) for i in spec.installs]


_WORD = re.compile(r"^[A-Za-z][A-Za-z.]*$")
_PROSE = re.compile(
    r"(?i)^(?:other|more|additional|extra|any|further|your)\b.*"
    r"\b(?:args|arguments|flags|options|parameters|params)$"
)


def _prose_placeholders(argv: list[Token]) -> list[Token]:
    """``… --dtype=bfloat16 other vLLM OpenAI server arguments``: a run of plain words the
    guide writes for "add your own flags here" is a placeholder, not positionals."""
    out = list(argv)
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and not out[j].symbolic and _WORD.match(out[j].text):
            j += 1
        if j - i >= 2 and _PROSE.match(" ".join(t.text for t in out[i:j])):
            out[i:j] = [Token(t.text, t.span, True) for t in out[i:j]]
        i = j + 1
    return out


def _expand_config_file(spec: LaunchSpec, md_path: str) -> None:
    """``vllm serve m --config FILE.yaml`` naming a file next to the guide (the legacy
    ``<Org>/*_Hopper.yaml`` files): its keys become options, spans in that file."""
    found = config_file_value(spec)
    if found is None:
        return
    name, at_value = found
    config = Path(md_path).parent / name
    note(config)
    try:
        if not config.is_file() or config.stat().st_size > 1 << 20:
            return
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        return
    lines = tuple(
        (line, Span(str(config), i, 1, i, len(line) + 1), False)
        for i, line in enumerate(text.splitlines(), start=1)
    )
    if expand_config_file(spec, at_value, lines):
        spec.context["config_text"] = text


def _nearest(pins: list[Pin], at: Span) -> Pin | None:
    before = [p for p in pins if (p.line, p.column) < (at.line, at.column)]
    if before:
        return max(before, key=lambda p: (p.line, p.column))
    after = [p for p in pins if (p.line, p.column) > (at.line, at.column) and not p.prose]
    return min(after, key=lambda p: (p.line, p.column)) if after else None


def read_markdown(
    path: str,
    text: str | None = None,
    *,
    base_line: int = 1,
    base_column: int = 1,
    floor: str | None = None,
    floor_span: Span | None = None,
    fixed_span: Span | None = None,
    label: str = "guide block",
    default_image: tuple[str, Span | None] | None = None,
    context: DocContext | None = None,
    defaults_for: str = "",
    floor_key: str = "floor",
) -> MarkdownResult:
    """Launches in the fenced shell blocks of a Markdown text (never raises for bad input).

    ``base_line``/``base_column``: where line 1, column 1 of ``text`` is in ``path`` (a
    guide string inside a recipe); ``fixed_span``: put every span there instead (text
    whose lines cannot be mapped back one to one); ``default_image``: the image the
    document's commands run in when it pins none (a recipe's ``docker_image``);
    ``context``: what the document installs before its text (a recipe's ``dependencies:``);
    ``defaults_for``: the engine whose launches ``default_image`` and ``floor`` are about
    (empty: every launch's);
    ``floor_key``: how the document names the floor (a recipe's ``min_vllm_version``).
    """
    result = MarkdownResult()
    if text is None:
        text = _read_text(path, result)
        if text is None:
            return result
    pins: list[Pin] = []
    floors: list[ProseFloor] = []
    fences = find_fences(text)
    result.blocks = len(fences)
    doc = context if context is not None else DocContext()
    text_lines = text.splitlines()
    previous_end = 0
    work = budget.FileWork()  # one budget for all the blocks of the file
    span_at = doc_span(path, base_line, base_column, fixed_span)
    mentions: list[EnvVar] = []
    for fence in fences:
        start = max(previous_end, 0)
        prose, previous_end = (
            prose_before(text_lines, fence, previous_end),
            fence.line + len(fence.lines),
        )
        # install steps the text gives in inline code (prose, tables, shell comments)
        doc.add_installs(prose_installs(prose.splitlines(), start + 1, span_at))
        mentions += inline_names(prose.splitlines(), start + 1, span_at)
        pins += _prose_pins(prose.splitlines(), start + 1, span_at)
        floors += prose_floors(prose.splitlines(), start + 1, span_at)
        if fence.is_shell:
            doc.add_installs(block_comment_installs(fence, text_lines, span_at))
        if not fence.is_shell:
            doc.add_code(fence)
            mapper = _Mapper(path, fence, base_line, base_column, fixed_span)
            doc.add_fenced_file(fence, prose, mapper)
            _read_other_kind(path, fence, mapper, label, doc, result)
        if not worth_reading(fence):
            continue
        mapper = _Mapper(path, fence, base_line, base_column, fixed_span)
        if work.spent():
            result.problems.append(
                ReadProblem(
                    path,
                    mapper.span(Span(path, fence.line, 1)),
                    work.note(f"code blocks from {fence.index} on"),
                    "budget",
                )
            )
            break
        result.shell_blocks += 1
        doc.add_checkout(fence)
        interp = _interpret_block(path, fence, mapper, work, result)
        if interp is None:
            continue
        _collect_block(path, fence, mapper, interp, label, doc, pins, result)
        doc.add_block(interp, mapper, len(interp.launches))
    result.commands_found = len(result.launches)
    for spec in result.launches:
        _assign_release(spec, pins, (floor, floor_span, floor_key), default_image, defaults_for)
        _assign_prose_floor(spec, floors)
    # env names the guide gives outside its launches (exports after them, notes, tables)
    attach(result.launches, [*doc.exports, *mentions])
    return result


def _prose_pins(lines: list[str], first: int, span_at) -> list[Pin]:  # noqa: ANN001
    """``prose_pins`` as the document's pins (the shell helpers' ``Pin``)."""
    found = prose_pins(lines, first, span_at)
    if not found:
        return []

    return [
        Pin(p.span.line, p.span.column, p.image, p.release, p.span, p.engine, prose=True)
        for p in found
    ]


def _read_text(path: str, result: MarkdownResult) -> str | None:
    """The text of the file at ``path``, or None (with the problem in ``result``)."""
    note(path)
    try:
        if not Path(path).is_file():  # a FIFO or device would block or never end
            raise OSError(f"not a regular file: {path}")
        raw = overlay.read_bytes(path)
    except OSError as exc:
        result.problems.append(ReadProblem(path, None, f"cannot read: {exc.strerror or exc}"))
        return None
    if len(raw) > MAX_BYTES:
        result.problems.append(ReadProblem(path, None, "Markdown file too large to check"))
        return None
    text, why = decode_markdown(raw)
    if why:
        result.problems.append(ReadProblem(path, None, why))
    nul = nul_bytes(raw) if "\0" in text else None
    if nul is not None:
        result.problems.append(ReadProblem(path, None, nul[0]))
        return None if nul[1] else text
    return text


def _interpret_block(
    path: str, fence: Fence, mapper: _Mapper, work: budget.FileWork, result: MarkdownResult
) -> BlockInterpreter | None:
    """The shell interpreter's reading of one block, or None when it failed (reported)."""
    try:
        prepared = prepare(fence)
        result.problems.extend(
            continuation_problems(
                path,
                prepared,
                lambda i, col, f=fence, m=mapper: m.span(
                    Span(path, f.line + i, col, f.line + i, col + 1)
                ),
            )
        )
        interp = interpret(
            path,
            fence,
            prepared,
            max_steps=work.steps_left(100_000),
            time_limit=work.seconds_left(3.0),
        )
        work.used(interp.steps)
    except Exception as exc:  # a reader must never take the run down
        at = mapper.span(Span(path, fence.line, 1))
        result.problems.append(
            ReadProblem(
                path,
                at,
                f"internal reader error in code block {fence.index}: {exc!r}",
                "read-error",
            )
        )
        return None
    return interp


def _read_other_kind(
    path: str, fence: Fence, mapper: _Mapper, label: str, doc: DocContext, result: MarkdownResult
) -> None:
    """A block in the language of another file kind (``sources.dispatch.block_reader``): its
    reader's command records, assembled as the document's launches."""
    reader = block_reader(fence.lang) if fence.lang else None
    if reader is None:
        return
    try:
        records = reader.block_records(path, "\n".join(fence.lines), fence.line)
        assemblies = [assemble(record) for record in records]
    except Exception as exc:  # a reader must never take the run down
        result.problems.append(ReadProblem(
            path, mapper.span(Span(path, fence.line, 1)),
            f"internal reader error in code block {fence.index}: {exc!r}", "read-error",
        ))
        return
    for asm in assemblies:
        result.problems.extend(
            ReadProblem(path, mapper.span(p.span), p.message, p.kind) for p in asm.problems
        )
        for spec in asm.specs:
            _adopt_launch(spec, path, fence, mapper, label, doc)
            result.launches.append(spec)


def _collect_block(
    path: str,
    fence: Fence,
    mapper: _Mapper,
    interp: BlockInterpreter,
    label: str,
    doc: DocContext,
    pins: list[Pin],
    result: MarkdownResult,
) -> None:
    """Move one block's pins, problems and launches into the document's spans."""

    for pin in interp.pins:
        span = mapper.span(pin.span)
        if span is not None:
            pins.append(Pin(span.line, span.column, pin.image, pin.release, span, pin.engine))
    for problem in interp.problems:
        if problem.kind in _SNIPPET_NOISE:
            continue
        result.problems.append(
            ReadProblem(path, mapper.span(problem.span), problem.message, problem.kind)
        )
    for spec in interp.launches:
        _adopt_launch(spec, path, fence, mapper, label, doc)
        result.launches.append(spec)


def _adopt_launch(
    spec: LaunchSpec, path: str, fence: Fence, mapper: _Mapper, label: str, doc: DocContext
) -> None:
    """A launch of a block as one of the document's: spans, origin, rendering, context."""
    mapper.spec(spec)
    spec.origin = "markdown"
    spec.rendering = f"{label} {fence.index}" + (f"; {spec.rendering}" if spec.rendering else "")
    spec.context["block"] = str(fence.index)
    doc.apply(spec)  # what earlier blocks installed, exported and wrote
    _expand_config_file(spec, path)
    # a <placeholder> (read as $_NAME) is never a value, even inside single quotes
    spec.argv = mark_placeholders(_prose_placeholders(
        [Token(t.text, t.span, True) if "$_" in t.text else t for t in spec.argv]
    ))


def decode_markdown(raw: bytes) -> tuple[str, str]:
    """The text of a Markdown file (UTF-8, or UTF-16/32 with a byte-order mark) and, when
    bytes could not be decoded, why (they are read as U+FFFD)."""
    codec = "utf-8-sig"
    for bom, name in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if raw.startswith(bom):
            codec = name
            break
    try:
        return raw.decode(codec), ""
    except UnicodeDecodeError as exc:
        return raw.decode(codec, errors="replace"), (
            f"Markdown is not valid {codec.removesuffix('-sig').upper()} (byte {exc.start}); "
            "undecodable bytes are read as U+FFFD"
        )


def _assign_release(
    spec: LaunchSpec,
    pins: list[Pin],
    floor_of: tuple[str | None, Span | None, str],
    default_image: tuple[str, Span | None] | None = None,
    defaults_for: str = "",
) -> None:
    """The launch's release: its own image or pin, else the nearest pin of its engine in the
    document, else the document's default image or floor when they are about its engine."""
    floor, floor_span, floor_key = floor_of
    if floor:
        spec.floor, spec.floor_span = floor, floor_span
    if spec.image or spec.release:
        return
    pin = _nearest([p for p in pins if p.engine == spec.engine], spec.anchor)
    if (
        pin is not None
        and (pin.line, pin.column) > (spec.anchor.line, spec.anchor.column)
        and any(i.name == spec.engine for i in spec.installs)
    ):
        pin = None  # the document installs the engine before: a later pin is another setup
    if pin is not None and any(
        i.name == spec.engine
        and i.span is not None
        and (i.span.line, i.span.column) > (pin.line, pin.column)
        for i in spec.installs
    ):
        pin = None  # an install of the engine after the pin decides what the launch gets
    if pin is not None and pin.image:
        spec.image, spec.image_span = pin.image, pin.span
        spec.context["release_from"] = f"image {pin.image} at line {pin.line}"
        spec.context["release_kind"] = ReleaseFrom.IMAGE.value
    elif pin is not None and pin.release:
        spec.release, spec.release_span = pin.release, pin.span
        spec.context["release_from"] = (
            f"pip pin {_package(spec.engine)}=={pin.release} at line {pin.line}"
        )
        spec.context["release_kind"] = ReleaseFrom.PIP_PIN.value
    elif default_image is not None and defaults_for in ("", spec.engine):
        spec.image, spec.image_span = default_image
        spec.context["release_from"] = f"the recipe's docker_image {default_image[0]}"
        spec.context["release_kind"] = ReleaseFrom.RECIPE_IMAGE.value
    elif floor and defaults_for in ("", spec.engine):
        spec.release, spec.release_span = floor, floor_span
        spec.context["release_from"] = f"{floor_key} {floor}"
        spec.context["release_kind"] = ReleaseFrom.FLOOR.value


def _assign_prose_floor(spec: LaunchSpec, floors: list[ProseFloor]) -> None:
    """A floor the text states before an unpinned launch ("vLLM 0.11.0 or later"): the
    launch meets the releases from it to the newest (``releases.ranges``), never one."""
    if spec.image or spec.release or spec.floor:
        return
    before = [f for f in floors if f.engine == spec.engine and f.span.line <= spec.anchor.line]
    if before:
        last = before[-1]
        spec.context["prose_floor"] = last.floor
        spec.context["prose_floor_from"] = f"`{last.text}` (line {last.span.line})"


def _package(engine: str) -> str:
    found = registry.find(engine)
    return (found.package if found else None) or engine
