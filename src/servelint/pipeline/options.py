"""What a check run is asked to do (from the command line and the config)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, eq=False, repr=False)
class Options:
    """How a check runs: the command line's choices that change what is judged."""

    image: str | None = None  # for launches that name no image
    engine: str | None = None  # "vllm==0.21.0" for launches that name no release
    gpu: str | None = None
    target_version: str | None = None  # "vllm==0.33.0": judge as if bumped to it
    config: Any = None  # servelint.pipeline.config.Config
    no_ignores: bool = False
    # the range of releases each launch passes on: True (first and last), "all" (also the
    # number of releases, checking every one), False (not computed)
    works_on: bool | str = False
    use_cache: bool = False  # reuse results of unchanged files (servelint.pipeline.cache)
    cap_guesses: bool = True  # a guessed release caps errors at warning (not for works_on)
    errors_only: bool = False  # run only the rules that can report an error (works_on)
    jobs: int = 0  # worker processes (0: one per core)
    # a warning repeated for one cause in many places reported once (servelint.pipeline.condense);
    # False for --fix, which edits every place
    one_per_cause: bool = True
