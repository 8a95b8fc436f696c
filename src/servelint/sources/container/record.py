"""The command record every deployment reader (Kubernetes, Helm, compose, SkyPilot) fills
for one container or task: the words with spans, the env with spans, the image, where it
came from. ``sources.container.launch.container_launches`` is its one consumer."""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.model import EnvVar, Span, Token
from servelint.sources.shell.values import VFile


@dataclass(slots=True)
class ShellText:
    """A shell script as the file holds it: ``text`` whose line 1 is line ``line_offset + 1``
    of the file and whose every word sits at its own column (a YAML block scalar's lines as
    written); None where the value cannot be placed so (escapes): its spans are then the
    scalar's."""

    text: str
    line_offset: int


@dataclass(slots=True)
class CommandRecord:
    """One container (or task) to read launches from.

    ``entrypoint`` replaces the image's (Kubernetes ``command``, compose ``entrypoint``; None:
    the image's own); ``args`` follow it (Kubernetes ``args``, compose ``command``).
    ``scripts`` maps a word's index in ``entrypoint + args`` to its text placed in the file,
    for ``sh -c WORD``. ``files`` are files the deployment mounts (a ConfigMap), by path."""

    origin: str  # "kubernetes" | "helm" | "compose" | "skypilot"
    path: str
    label: str  # names the object and container in the launch's rendering
    anchor: Span
    entrypoint: list[Token] | None
    args: list[Token]
    env: list[EnvVar] = field(default_factory=list)
    image: Token | None = None
    scripts: dict[int, ShellText] = field(default_factory=dict)
    files: dict[str, VFile] = field(default_factory=dict)
    context: dict[str, str] = field(default_factory=dict)
