"""Paths -> jobs: which files to check and which reader reads each (asked of the registry)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from servelint.pipeline.options import Options
from servelint.sources.base import Reader
from servelint.sources.registry import reader_for, reader_for_dir

SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
NON_LAUNCH_SKIPPED = {".yaml", ".yml"}  # named but no reader claims it: skipped, no note


@dataclass(slots=True)
class Job:
    """One unit to check: a file (or a directory read as one), the reader that reads it, or
    why it cannot be read (``problem``: the unit is then that problem)."""

    path: str
    reader: Reader | None
    problem: str | None = None
    problem_kind: str = "read-error"


UNKNOWN_KIND = (
    "servelint does not know what kind of file this is (expected a recipe .yaml, "
    "a launcher .sh, a master config or Markdown)"
)


def discover(paths: Iterable[str], options: Options) -> Iterator[Job]:
    """Every unit to check, in the order given (a folder's files sorted, walked depth-first)."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            whole = reader_for_dir(p)
            if whole is not None:
                yield Job(str(p), whole)
                continue
            for root, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for f in sorted(files):
                    fp = Path(root) / f
                    if _excluded(fp, options):
                        continue
                    reader = reader_for(fp)
                    if reader is not None:
                        yield Job(str(fp), reader)
        elif p.exists() or p.is_symlink():
            if _excluded(p, options):  # a file named explicitly (pre-commit) too
                continue
            reader = reader_for(p)
            if reader is None and p.suffix.lower() in NON_LAUNCH_SKIPPED:
                continue  # YAML that is no launch config (.pre-commit-config.yaml): the
                # readers decide, as in a folder
            yield (
                Job(str(p), reader)
                if reader is not None
                else Job(str(p), None, UNKNOWN_KIND, "unsupported")
            )
        else:
            yield Job(str(p), None, "no such file or directory")


def _excluded(path: Path, options: Options) -> bool:
    cfg = options.config
    return bool(cfg is not None and hasattr(cfg, "excluded") and cfg.excluded(path))
