"""The one record every reader produces for a command it found (see ``servelint.launches``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.model import EnvVar, LaunchSpec, PackageInstall, Span, Token
from servelint.sources.common.problems import ReadProblem

# the lines of a file the document writes: (text, span, symbolic) per line
Lines = tuple[tuple[str, Span | None, bool], ...]


@dataclass(slots=True)
class Origin:
    """Where a command was read: the file kind (``LaunchSpec.origin``: "script", "markdown",
    a new kind's name), the file findings point into, and a label naming the rendering,
    branch, block or container the command is one of."""

    kind: str
    path: str
    rendering: str = ""


@dataclass(slots=True)
class CommandRecord:
    """One command as a document states it, before anything about engines is known.

    ``words``: the command line after the reader's expansion, wrappers included (``env X=1
    vllm serve m``, ``docker run IMAGE …``); a token whose value the document does not fix
    (a variable, a ``<placeholder>``) is ``symbolic``. With ``image`` set, the command runs
    in that container: ``words`` are the container's arguments, and ``entrypoint`` (when
    the document sets one: Kubernetes ``command:``, ``--entrypoint``) replaces the image's.
    ``env``: the environment the command runs with, each entry with its span (the words'
    own ``VAR=x`` prefixes are the assembler's). ``installs``: the install lines run before
    it; ``files``: the files the document writes before it, by the name the command would
    use (None: written, content unknown). ``context``: reader facts carried to the launch.
    """

    words: list[Token]
    anchor: Span
    origin: Origin
    env: list[EnvVar] = field(default_factory=list)
    installs: list[PackageInstall] = field(default_factory=list)
    files: dict[str, Lines | None] = field(default_factory=dict)
    image: Token | None = None
    entrypoint: list[Token] | None = None
    context: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Assembly:
    """What the assembler made of one record.

    ``specs``: the launches (none when the command starts no engine); ``problems``: what the
    reader should report (an image entrypoint repeated, a config file that is not a flat
    mapping); ``image``: the container image the command runs in (a document's release pin);
    ``shell``: a container's own command when it is no launch (``bash -c '…'``), for a
    reader that interprets shell: launches it finds there go through ``in_container``.
    """

    specs: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    image: Token | None = None
    shell: list[Token] = field(default_factory=list)
    container: Container | None = None


@dataclass(slots=True)
class Container:
    """The container a command runs in: its image, env, and how its command was found."""

    image: Token | None
    anchor: Span | None
    env: list[EnvVar] = field(default_factory=list)
    context: dict[str, str] = field(default_factory=dict)
