"""What servelint knows about one serving engine: the Engine interface.

An engine is one package under ``servelint/engines/`` whose ``ENGINE`` (an ``Engine``) names
its image repositories and how their tags name releases, the commands and modules that start
it, the option that names its config file, its argv model (the module whose ``parse`` is the
engine's own argv handling) and its profile builder. ``engines/registry.py`` lists them; the
rest of servelint asks the registry and holds no engine strings.

Facts rules read come from the release profile (``servelint.profiles.Profile``), which every
engine's builder writes in one format (docs/profile-format.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar

from servelint.engines.tags import release_from_tag

# The records below compare by identity (``eq=False``): nothing compares them by value.
T = TypeVar("T")


@dataclass(slots=True, eq=False)
class Command:
    """A launch by command words: ``vllm serve`` is ``Command(("vllm", "serve"))``. The first
    word is compared by basename (``/usr/bin/vllm``); argv starts after the last word."""

    words: tuple[str, ...]
    entrypoint: str = ""  # how findings name the launch; default: the words joined

    @property
    def name(self) -> str:
        return self.entrypoint or " ".join(self.words)


@dataclass(slots=True, eq=False)
class Module:
    """A launch by ``python -m MODULE [then...]``; argv starts after ``then``."""

    module: str
    entrypoint: str = ""  # default: "python -m MODULE"
    then: tuple[str, ...] = ()
    # a wrapper's module that starts another engine (``dynamo.vllm``): the launch is that
    # engine's (default: the engine declaring the launcher)
    starts: str = ""

    @property
    def name(self) -> str:
        return self.entrypoint or f"python -m {self.module}"


@dataclass(slots=True, eq=False)
class ImageEntrypoint:
    """What an image runs before the arguments ``docker run IMAGE ARGS`` gives it: its
    ENTRYPOINT words (empty: none, the arguments are the command) and CMD, read from the
    release's own Dockerfile (``at``: file:line). ``exact`` is False when the release's build
    files were not read and its profiled neighbours', which agree, stand in (``why``)."""

    words: tuple[str, ...]
    cmd: tuple[str, ...]
    at: str
    exact: bool = True
    why: str = ""


def no_entrypoint_table(repository: str, release: str | None) -> ImageEntrypoint | None:
    """An engine without a table of its images' entrypoints: unknown."""
    return None


@dataclass(slots=True, eq=False)
class Images:
    """The engine's container images and how their tags name releases."""

    _: KW_ONLY
    repositories: tuple[str, ...] = ()  # registry-relative, lowercase ("vllm/vllm-openai")
    # repositories whose floating ``latest`` is the newest release (the engine's own)
    official: tuple[str, ...] = ()
    # repositories of a wrapper (Dynamo) whose tag is the wrapper's version, not the engine's
    wrappers: tuple[str, ...] = ()
    # words that make an unlisted repository's last part this engine's ("my/vllm-fork")
    name_words: tuple[str, ...] = ()
    # tag -> (release or None, custom build?, why no release)
    release_of: Callable[[str], tuple[str | None, bool, str]] = release_from_tag
    # repository -> the command words its ENTRYPOINT runs before the container's arguments
    # when the release's own Dockerfile was not read (vllm/vllm-openai runs ``vllm serve``)
    entrypoints: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the entrypoint taken for this engine's other repositories, whose Dockerfiles servelint
    # cannot see (used only when the arguments start with a flag or a model id)
    assumed_entrypoint: tuple[str, ...] = ()
    # (repository, release; None = the newest) -> what that release's image runs, read
    # from its own Dockerfile; None = not read
    entrypoint_table: Callable[[str, str | None], ImageEntrypoint | None] = no_entrypoint_table

    def entrypoint(self, repository: str, release: str | None = None) -> tuple[str, ...] | None:
        """The words the image ``repository`` at ``release`` runs before its arguments (its
        ``ENTRYPOINT``), or None when servelint does not know it: the release's own
        Dockerfile first (``entrypoint_table``), else ``entrypoints`` (``release`` is None
        when the tag names none)."""
        read = self.entrypoint_read(repository, release)
        if read is not None:
            return read.words or None
        return self.entrypoints.get(repository)

    def entrypoint_read(self, repository: str, release: str | None = None) -> ImageEntrypoint | None:
        """What the release's own Dockerfile says the image runs, with where (None: not read)."""
        return self.entrypoint_table(repository, release)


class ArgvModel(Protocol):
    """The module that re-states the engine's argv handling over a profile."""

    def parse(self, profile: Any, argv: list[str]) -> Any:
        """A ``ParseResult`` (``engines.argparse_emul``) for what follows the entrypoint."""
        ...


@dataclass(slots=True, eq=False)
class Engine:
    """One engine's facts (see the module docstring); one instance per engine, found by ``name``
    in the registry (instances compare by identity)."""

    name: str  # as in profiles and findings: "vllm"
    _: KW_ONLY
    package: str | None = None  # PyPI distribution whose ``==`` pin names the release
    images: Images = field(default_factory=Images)
    launchers: tuple[Command | Module, ...] = ()
    config_flags: tuple[str, ...] = ()  # options naming a file the engine reads options from
    # words whose presence makes a shell text worth interpreting (commands, module tails)
    shell_words: tuple[str, ...] = ()
    # dotted module with ``parse(profile, argv)``; None: unchecked
    argv_module: str | None = None
    # builder: modules whose ``extract(src, profile) -> dict`` fill the profile, in order
    # (servelint.builders; never imported by ``check``)
    extractors: tuple[str, ...] = ()
    profile_dir: Path | None = None  # default: the package's profiles/data/<name>
    # the reader keeps the lines of the config file a launch passes (LaunchSpec.option_file)
    # for the argv model's ``option_file_problems`` (TensorRT-LLM's LLM API YAML)
    option_file_checks: bool = False
    # the entrypoints whose argv the argv model states (empty: all); others (TensorRT-LLM's
    # ``trtllm-serve disaggregated``, Dynamo's trtllm workers) are recognised, not judged
    judged_entrypoints: tuple[str, ...] = ()
    # profiles exist for some releases only: an unprofiled image release is judged by its
    # profiled neighbours, capped at warning (servelint.releases.release_range)
    sparse_profiles: bool = False
    # "module:function" turning the lines of the file a config flag names into the argv
    # the engine reads from it (``fn(lines) -> list[Token] | None``, None: not a flat
    # mapping); None: the file is not expanded (servelint.launches)
    config_expander: str | None = None
    # the argv model reads the config file itself (SGLang's merge), by its path on disk
    config_read_by_parser: bool = False
    # a wrapper's launch adapter (Dynamo workers): a module with ``adapt(spec)`` and the
    # functions the judge calls on what it returns, for launches whose entrypoint is one
    # of ``adapted_entrypoints`` (servelint.pipeline.judge)
    launch_adapter: str | None = None
    adapted_entrypoints: tuple[str, ...] = ()
    # (flag, engine): a flag with which the command hands the launch to another package's
    # server, judged as that engine (vLLM's ``--omni`` -> vLLM-Omni)
    handoff_flags: tuple[tuple[str, str], ...] = ()
    # its source repositories ("owner/name"): a document that clones one and then runs
    # ``pip install -e .`` builds this engine (Markdown guides)
    source_repositories: tuple[str, ...] = ()
    # what is read once from the engine's own data files (``derived``)
    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def derived(self, name: str, compute: Callable[[Engine], T]) -> T:
        """What ``compute`` reads from the engine's own data files (its release history),
        made on first use and kept with the engine: it lives as long as the engine is
        registered (``register`` of a replacement starts afresh). ``name`` is the asking
        module's."""
        if name not in self._derived:
            self._derived[name] = compute(self)
        return self._derived[name]

    def forget(self, name: str) -> None:
        """Drop what ``derived`` kept under ``name`` (its data file was rewritten)."""
        self._derived.pop(name, None)

    def expand_config(self, lines: tuple) -> list | None:
        """The argv the engine reads from its config file's ``lines`` ((text, span, symbolic)
        each), or None when it cannot say (not expanded, or not a flat mapping)."""
        if self.config_expander is None:
            return None
        module, _, function = self.config_expander.partition(":")
        return getattr(importlib.import_module(module), function)(lines)

    def adapter(self) -> ModuleType | None:
        return importlib.import_module(self.launch_adapter) if self.launch_adapter else None

    def judges(self, entrypoint: str) -> bool:
        return not self.judged_entrypoints or entrypoint in self.judged_entrypoints

    def argv_model(self) -> ArgvModel | ModuleType | None:
        return importlib.import_module(self.argv_module) if self.argv_module else None
