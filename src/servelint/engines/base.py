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
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Command:
    """A launch by command words: ``vllm serve`` is ``Command(("vllm", "serve"))``. The first
    word is compared by basename (``/usr/bin/vllm``); argv starts after the last word."""

    words: tuple[str, ...]
    entrypoint: str = ""  # how findings name the launch; default: the words joined

    @property
    def name(self) -> str:
        return self.entrypoint or " ".join(self.words)


@dataclass(frozen=True, slots=True)
class Module:
    """A launch by ``python -m MODULE [then...]``; argv starts after ``then``."""

    module: str
    entrypoint: str = ""  # default: "python -m MODULE"
    then: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.entrypoint or f"python -m {self.module}"


def release_from_version_tag(tag: str) -> tuple[str | None, bool, str]:
    """The usual tag grammar (``v0.21.0``, ``0.5.12.post1-cu130``): see ``engines.images``."""
    from servelint.engines.images import release_from_tag

    return release_from_tag(tag)


@dataclass(frozen=True, slots=True)
class Images:
    """The engine's container images and how their tags name releases."""

    repositories: tuple[str, ...] = ()  # registry-relative, lowercase ("vllm/vllm-openai")
    # repositories whose floating ``latest`` is the newest release (the engine's own)
    official: tuple[str, ...] = ()
    # repositories of a wrapper (Dynamo) whose tag is the wrapper's version, not the engine's
    wrappers: tuple[str, ...] = ()
    # words that make an unlisted repository's last part this engine's ("my/vllm-fork")
    name_words: tuple[str, ...] = ()
    # tag -> (release or None, custom build?, why no release)
    release_of: Callable[[str], tuple[str | None, bool, str]] = release_from_version_tag


class ArgvModel(Protocol):
    """The module that re-states the engine's argv handling over a profile."""

    def parse(self, profile: Any, argv: list[str]) -> Any:
        """A ``ParseResult`` (``engines.argparse_emul``) for what follows the entrypoint."""
        ...


@dataclass(frozen=True, slots=True)
class Engine:
    name: str  # as in profiles and findings: "vllm"
    package: str | None = None  # PyPI distribution whose ``==`` pin names the release
    images: Images = Images()
    launchers: tuple[Command | Module, ...] = ()
    config_flags: tuple[str, ...] = ()  # options naming a file the engine reads options from
    # words whose presence makes a shell text worth interpreting (commands, module tails)
    shell_words: tuple[str, ...] = ()
    argv_module: str | None = None  # dotted module with ``parse(profile, argv)``; None: unchecked
    # builder: modules whose ``extract(src, profile) -> dict`` fill the profile, in order
    # (servelint.engines._build; never imported by ``check``)
    extractors: tuple[str, ...] = ()
    profile_dir: Path | None = None  # default: the package's profiles/data/<name>
    # the reader keeps the lines of the config file a launch passes (LaunchSpec.option_file)
    # for the argv model's ``option_file_problems`` (TensorRT-LLM's LLM API YAML)
    option_file_checks: bool = False
    # the entrypoints whose argv the argv model states (empty: all); others (TensorRT-LLM's
    # ``trtllm-serve disaggregated``, Dynamo's trtllm workers) are recognised, not judged
    judged_entrypoints: tuple[str, ...] = ()
    # profiles exist for some releases only: an unprofiled image release is judged by its
    # profiled neighbours, capped at warning (servelint.release_range)
    sparse_profiles: bool = False

    def judges(self, entrypoint: str) -> bool:
        return not self.judged_entrypoints or entrypoint in self.judged_entrypoints

    def argv_model(self) -> ArgvModel | ModuleType | None:
        return importlib.import_module(self.argv_module) if self.argv_module else None
