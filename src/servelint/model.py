"""Core data types that flow one way: file -> LaunchSpec -> rules -> Finding -> reporter.

Positions are 1-based everywhere (line and column); ``end_column`` is exclusive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


class ReleaseFrom(StrEnum):
    """What gave a launch its release (``LaunchSpec.context["release_kind"]``; the human words
    are ``context["release_from"]``): an ``image`` or ``pip-pin`` the document states before
    the launch, the ``recipe-image`` its recipe names, the recipe's ``floor``
    (``min_vllm_version``), or an ``install`` of the engine (``pip install vllm==X``, a
    versioned wheel index)."""

    IMAGE = "image"
    PIP_PIN = "pip-pin"
    RECIPE_IMAGE = "recipe-image"
    FLOOR = "floor"
    INSTALL = "install"


def release_kind(spec: LaunchSpec) -> str:
    """``spec``'s ``ReleaseFrom`` value, "" when nothing set one."""
    return spec.context.get("release_kind", "")


class FixSafety(StrEnum):
    """How far a machine edit can be trusted (ruff's applicability). ``safe``: the launch
    means the same after it, ``--fix`` applies it; ``unsafe``: it changes what runs (drops a
    flag, bumps an image), only ``--unsafe-fixes`` applies it; ``none``: no edit offered."""

    NONE = "none"
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file (1-based line/column, end column exclusive)."""

    path: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def sort_key(self) -> tuple[str, int, int]:
        return (self.path, self.line, self.column)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace source text in one file.

    ``span`` is exact (1-based line and column in characters, end exclusive; an empty span
    inserts) unless ``old`` is set: then ``span`` is the region a token occupies as written
    (quotes and all) and the edit replaces the first ``old`` inside it. That is how a rule,
    which sees unquoted token texts and never reads the file, edits the bytes as written;
    an ``old`` missing from the region makes the fix inapplicable, never a wrong edit.
    """

    span: Span
    replacement: str
    old: str = ""


@dataclass(frozen=True, slots=True)
class Fix:
    """A machine-applicable remedy: edits (all in one file, not overlapping), applied
    together or not at all; ``safety`` says whether ``--fix`` may apply it unasked."""

    edits: tuple[Edit, ...]
    safety: FixSafety
    description: str

    @property
    def path(self) -> str:
        return self.edits[0].span.path if self.edits else ""


@dataclass(slots=True)
class Token:
    """One argv element as the engine would receive it.

    ``text`` is the value after shell unquoting. ``symbolic`` marks a value the
    source does not fix (``"$TP"``): its text is the source spelling and rules
    must never judge it as a value (a flag name that is symbolic is not judged
    either).
    """

    text: str
    span: Span | None = None
    symbolic: bool = False


@dataclass(slots=True)
class EnvVar:
    """An environment variable the launch runs with."""

    name: str
    value: str
    span: Span | None = None
    symbolic: bool = False


@dataclass(slots=True)
class PackageInstall:
    """A runtime package install that happens before the launch (``pip install X``)."""

    requirement: str  # the requirement text as written (``fastokens>=0.1.1,<0.2.0``)
    name: str | None  # canonical distribution name; None for URLs/paths that name none
    specifier: str = ""  # version specifier text ("" = any)
    kind: str = "name"  # name | url | vcs | path | wheel | requirements-file | editable
    span: Span | None = None
    hashed: bool = False  # --require-hash / --hash present
    symbolic: bool = False
    installer: str = "pip"  # pip | uv
    command: str = ""  # the whole install command line
    # an install step elsewhere in the document (an earlier block, a recipe's dependencies:),
    # not a line of the launch's own script
    from_context: bool = False


@dataclass(slots=True)
class LaunchSpec:
    """One concrete launch of an engine server, with a span for every piece."""

    engine: str  # "vllm" | "sglang" | "trtllm" | "unknown"
    entrypoint: str  # "vllm serve", "python -m vllm.entrypoints.openai.api_server", ...
    argv: list[Token]  # arguments after the entrypoint, in order
    path: str  # source file
    anchor: Span  # where the launch is (first token of the command, or recipe key)
    env: list[EnvVar] = field(default_factory=list)
    image: str | None = None
    image_span: Span | None = None
    # An explicit engine release to judge against (``--engine vllm==X``, a pip pin).
    release: str | None = None
    release_span: Span | None = None
    # A version floor the source claims (recipe ``min_vllm_version``).
    floor: str | None = None
    floor_span: Span | None = None
    gpu: str | None = None  # hardware id (taxonomy / runner name), e.g. "b300"
    installs: list[PackageInstall] = field(default_factory=list)
    rendering: str = ""  # a label naming this rendering / branch / matrix row
    origin: str = ""  # recipe | script | inferencex | markdown | config
    # Extra facts the reader knows (recipe variant, feature set, strategy, ...).
    context: dict[str, str] = field(default_factory=dict)
    # The option file the launch passes (TensorRT-LLM ``--config FILE``) when the source wrote
    # it: (text, span, symbolic) per line; None when there is none or its text is unknown.
    option_file: tuple[tuple[str, Span | None, bool], ...] | None = None


@dataclass(slots=True)
class Finding:
    """One problem, at one place, judged against one engine release."""

    rule: str  # kebab-case rule name, e.g. "flag-unknown"
    code: str  # stable code, e.g. "SL101"
    severity: Severity
    message: str
    span: Span
    engine: str = ""
    release: str = ""  # the release judged against, e.g. "0.27.1"
    renderings: list[str] = field(default_factory=list)
    fix: str = ""  # what to do, in words (shown as "fix:")
    related: list[Span] = field(default_factory=list)
    autofix: Fix | None = None  # the same remedy as edits, for --fix / --diff
    evidence: str = ""  # the engine file:line (or oracle verdict) behind the verdict

    def key(self) -> tuple:
        """Identity used to merge findings from many renderings of the same line."""
        return (self.rule, self.span.path, self.span.line, self.span.column, self.message)
