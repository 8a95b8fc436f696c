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
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

# The records below are plain classes: a dataclass compiles its generated methods when its
# module is imported (~0.5 ms each, on every run), and nothing compares, hashes or copies them.


class Command:
    """A launch by command words: ``vllm serve`` is ``Command(("vllm", "serve"))``. The first
    word is compared by basename (``/usr/bin/vllm``); argv starts after the last word."""

    __slots__ = ("words", "entrypoint")

    def __init__(self, words: tuple[str, ...], entrypoint: str = "") -> None:
        self.words = words
        self.entrypoint = entrypoint  # how findings name the launch; default: the words joined

    @property
    def name(self) -> str:
        return self.entrypoint or " ".join(self.words)


class Module:
    """A launch by ``python -m MODULE [then...]``; argv starts after ``then``."""

    __slots__ = ("module", "entrypoint", "then")

    def __init__(self, module: str, entrypoint: str = "", then: tuple[str, ...] = ()) -> None:
        self.module = module
        self.entrypoint = entrypoint  # default: "python -m MODULE"
        self.then = then

    @property
    def name(self) -> str:
        return self.entrypoint or f"python -m {self.module}"


def release_from_version_tag(tag: str) -> tuple[str | None, bool, str]:
    """The usual tag grammar (``v0.21.0``, ``0.5.12.post1-cu130``): see ``engines.images``."""
    from servelint.engines.images import release_from_tag

    return release_from_tag(tag)


class ImageEntrypoint:
    """What an image runs before the arguments ``docker run IMAGE ARGS`` gives it: its
    ENTRYPOINT words (empty: none, the arguments are the command) and CMD, read from the
    release's own Dockerfile (``at``: file:line). ``exact`` is False when the release's build
    files were not read and its profiled neighbours', which agree, stand in (``why``)."""

    __slots__ = ("words", "cmd", "at", "exact", "why")

    def __init__(
        self, words: tuple[str, ...], cmd: tuple[str, ...], at: str, exact: bool = True,
        why: str = "",
    ) -> None:
        self.words = words
        self.cmd = cmd
        self.at = at
        self.exact = exact
        self.why = why


def no_entrypoint_table(repository: str, release: str | None) -> ImageEntrypoint | None:
    """An engine without a table of its images' entrypoints: unknown."""
    return None


class Images:
    """The engine's container images and how their tags name releases."""

    __slots__ = (
        "repositories", "official", "wrappers", "name_words", "release_of", "entrypoint",
    )

    def __init__(
        self,
        *,
        repositories: tuple[str, ...] = (),
        official: tuple[str, ...] = (),
        wrappers: tuple[str, ...] = (),
        name_words: tuple[str, ...] = (),
        release_of: Callable[[str], tuple[str | None, bool, str]] = release_from_version_tag,
        entrypoint: Callable[[str, str | None], ImageEntrypoint | None] = no_entrypoint_table,
    ) -> None:
        self.repositories = repositories  # registry-relative, lowercase ("vllm/vllm-openai")
        # repositories whose floating ``latest`` is the newest release (the engine's own)
        self.official = official
        # repositories of a wrapper (Dynamo) whose tag is the wrapper's version, not the engine's
        self.wrappers = wrappers
        # words that make an unlisted repository's last part this engine's ("my/vllm-fork")
        self.name_words = name_words
        # tag -> (release or None, custom build?, why no release)
        self.release_of = release_of
        # (repository, release; None = the newest) -> what the image runs, None = unknown
        self.entrypoint = entrypoint


class ArgvModel(Protocol):
    """The module that re-states the engine's argv handling over a profile."""

    def parse(self, profile: Any, argv: list[str]) -> Any:
        """A ``ParseResult`` (``engines.argparse_emul``) for what follows the entrypoint."""
        ...


class Engine:
    """One engine's facts (see the module docstring); one instance per engine, found by ``name``
    in the registry (instances compare by identity)."""

    __slots__ = (
        "name",
        "package",
        "images",
        "launchers",
        "config_flags",
        "shell_words",
        "argv_module",
        "extractors",
        "profile_dir",
        "option_file_checks",
        "judged_entrypoints",
        "sparse_profiles",
    )

    def __init__(
        self,
        name: str,
        *,
        package: str | None = None,
        images: Images | None = None,
        launchers: tuple[Command | Module, ...] = (),
        config_flags: tuple[str, ...] = (),
        shell_words: tuple[str, ...] = (),
        argv_module: str | None = None,
        extractors: tuple[str, ...] = (),
        profile_dir: Path | None = None,
        option_file_checks: bool = False,
        judged_entrypoints: tuple[str, ...] = (),
        sparse_profiles: bool = False,
    ) -> None:
        self.name = name  # as in profiles and findings: "vllm"
        self.package = package  # PyPI distribution whose ``==`` pin names the release
        self.images = images or Images()
        self.launchers = launchers
        self.config_flags = config_flags  # options naming a file the engine reads options from
        # words whose presence makes a shell text worth interpreting (commands, module tails)
        self.shell_words = shell_words
        # dotted module with ``parse(profile, argv)``; None: unchecked
        self.argv_module = argv_module
        # builder: modules whose ``extract(src, profile) -> dict`` fill the profile, in order
        # (servelint.engines._build; never imported by ``check``)
        self.extractors = extractors
        self.profile_dir = profile_dir  # default: the package's profiles/data/<name>
        # the reader keeps the lines of the config file a launch passes (LaunchSpec.option_file)
        # for the argv model's ``option_file_problems`` (TensorRT-LLM's LLM API YAML)
        self.option_file_checks = option_file_checks
        # the entrypoints whose argv the argv model states (empty: all); others (TensorRT-LLM's
        # ``trtllm-serve disaggregated``, Dynamo's trtllm workers) are recognised, not judged
        self.judged_entrypoints = judged_entrypoints
        # profiles exist for some releases only: an unprofiled image release is judged by its
        # profiled neighbours, capped at warning (servelint.release_range)
        self.sparse_profiles = sparse_profiles

    def judges(self, entrypoint: str) -> bool:
        return not self.judged_entrypoints or entrypoint in self.judged_entrypoints

    def argv_model(self) -> ArgvModel | ModuleType | None:
        return importlib.import_module(self.argv_module) if self.argv_module else None
