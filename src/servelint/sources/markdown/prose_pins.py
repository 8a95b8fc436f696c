"""Releases a guide names in its text rather than in a command: "sglang version: 0.5.6",
"tested with vLLM 0.11.0", an image table or note naming `lmsysorg/sglang:v0.5.6` or
`vllm/vllm-openai:v0.11.0`, an inline `pip install vllm==0.11.0`. They pin the commands
that follow as a release-tagged image or a pip pin in a block does (``reader._nearest``).

Only an exact release is a pin: "vLLM 0.11.0 or later", "vllm>=0.11", "requires SGLang >=
0.5.6" state a floor (``prose_floors``): the commands that follow meet any release from it to
the newest (``releases.ranges``), never one release. Engine names are the registry's (an engine the text names by another
word, "TensorRT-LLM", is not read here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servelint.engines.images import resolve_image
from servelint.engines.registry import engines
from servelint.model import Span

_VERSION = r"v?(?P<v{n}>\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)"
_FLOOR_AFTER = re.compile(r"^\s*(?:\+|or\s+(?:later|newer|above|higher)|and\s+(?:later|newer|above))")
_INLINE = re.compile(r"`([^`\n]+)`")
_IMAGE = re.compile(r"^[\w.-]+(?:[:/][\w.-]+)*/[\w.-]+:[\w.+-]+$")


def _said() -> re.Pattern[str]:
    """``<engine> version: X``, ``tested with <engine> X``, ``<engine>==X``."""
    names = "|".join(sorted((re.escape(e.name) for e in engines() if e.package), key=len))
    return re.compile(
        rf"(?i)(?:\b(?P<e1>{names})\s+version\s*(?:is\s+)?[:=]?\s*`?{_VERSION.format(n=1)}"
        rf"|\btested\s+(?:with|on|against)\s+`?(?P<e2>{names})\s*(?:==|\s)\s*`?"
        rf"{_VERSION.format(n=2)}"
        rf"|\b(?P<e3>{names})(?:\[[\w,]+\])?=={_VERSION.format(n=3)})(?![\w]|\.\w)"  # a sentence's full stop may follow
    )


def _floor_said() -> re.Pattern[str]:
    """``<engine> X or later``, ``<engine> X+``, ``<engine> >= X``, ``<engine> version >= X``."""
    names = "|".join(sorted((re.escape(e.name) for e in engines() if e.package), key=len))
    version = r"v?(?P<v{n}>\d+\.\d+(?:\.\d+)?(?:\.post\d+|rc\d+)?)"
    return re.compile(
        rf"(?i)\b(?P<e1>{names})(?:\s+version)?\s+`?{version.format(n=1)}`?"
        r"\s*(?:\+|or\s+(?:later|newer|above|higher)|and\s+(?:later|newer|above))"
        rf"|\b(?P<e2>{names})(?:\[[\w,]+\])?(?:\s+version)?\s*(?:>=|≥)\s*{version.format(n=2)}"
    )


@dataclass(slots=True, eq=False)
class ProseFloor:
    """The lowest release the text says a command needs."""

    engine: str
    floor: str
    text: str
    span: Span


def prose_floors(lines: list[str], first: int, span_at) -> list[ProseFloor]:  # noqa: ANN001
    """Floors stated in prose ``lines`` (document line ``first`` on)."""
    out: list[ProseFloor] = []
    said = _floor_said()  # once per block: the engines' names may change (a plugin engine)
    for i, line in enumerate(lines):
        for m in said.finditer(line):
            engine = (m.group("e1") or m.group("e2")).lower()
            floor = m.group("v1") or m.group("v2")
            span = span_at(first + i, m.start() + 1, m.end() + 1)
            out.append(ProseFloor(engine, floor, m.group(0), span))
    return out


@dataclass(slots=True, eq=False)
class ProsePin:
    """A release the text names."""

    engine: str
    image: str | None
    release: str | None
    span: Span


def prose_pins(lines: list[str], first: int, span_at) -> list[ProsePin]:  # noqa: ANN001
    """Pins in prose ``lines`` (document line ``first`` on); ``span_at(line, column, end)``
    maps document coordinates to a span."""
    out: list[ProsePin] = []
    said = _said()  # once per block: the engines' names may change (a plugin engine)
    for i, line in enumerate(lines):
        row = first + i
        for m in said.finditer(line):
            after, before = line[m.end() :], line[max(0, m.start() - 3) : m.start()]
            if _FLOOR_AFTER.match(after) or ">=" in before:
                continue
            engine = (m.group("e1") or m.group("e2") or m.group("e3")).lower()
            version = m.group("v1") or m.group("v2") or m.group("v3")
            out.append(ProsePin(engine, None, version, span_at(row, m.start() + 1, m.end() + 1)))
        for code in _INLINE.finditer(line):
            text = code.group(1).strip()
            if not _IMAGE.match(text):
                continue
            ref = resolve_image(text)
            if ref.release and not ref.custom and ref.engine != "unknown":
                span = span_at(row, code.start(1) + 1, code.end(1) + 1)
                out.append(ProsePin(ref.engine, text, None, span))
    return out
