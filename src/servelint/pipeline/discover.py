"""Paths -> jobs: which files to check and which reader reads each (asked of the registry)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from servelint.pipeline.options import Options
from servelint.sources.base import Reader
from servelint.sources.common.walk import Skipped, path_kind, walk
from servelint.sources.registry import reader_for, reader_for_dir

SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
NON_LAUNCH_SKIPPED = {".yaml", ".yml"}  # named but no reader claims it: skipped, no note


@dataclass(slots=True, eq=False)
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
    """Every unit to check, in the order given (a folder's files sorted, walked depth-first,
    without recursion; a folder the walk could not enter is a unit that is that problem)."""
    for raw in paths:
        p = Path(raw)
        found = path_kind(raw)
        if found == "dir":
            whole = _reader_for_dir(p)
            if whole is not None:
                yield Job(str(p), whole)
                continue
            for item in walk(raw, SKIP_DIRS):
                if isinstance(item, Skipped):
                    yield Job(item.path, None, item.reason)
                    continue
                fp = Path(item)
                if _excluded(fp, options):
                    continue
                reader = reader_for(fp)
                if reader is not None:
                    yield Job(item, reader)
        elif found == "file":
            if _excluded(p, options):  # a file named explicitly (pre-commit) too
                continue
            reader = reader_for(p)
            if reader is None and p.suffix.lower() in NON_LAUNCH_SKIPPED:
                # YAML that is no launch config (.pre-commit-config.yaml): one info line
                # saying why it was not checked, never a silent pass
                yield Job(str(p), None, not_checked_yaml(p), "unsupported")
                continue
            yield (
                Job(str(p), reader)
                if reader is not None
                else Job(str(p), None, UNKNOWN_KIND, "unsupported")
            )
        elif found == "missing":
            yield Job(str(p), None, "no such file or directory")
        else:
            yield Job(str(p), None, _stat_error(raw))


def not_checked_yaml(path: Path) -> str:
    """Why a YAML file the user named is not checked: empty, not YAML, or no kind of
    launch configuration servelint reads."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"not checked: cannot read: {exc.strerror or exc}"
    if not text.strip():
        return "not checked: the file is empty"
    try:
        for _ in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            pass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return f"not checked: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}"
    return ("not checked: YAML that is no launch configuration servelint reads (a recipe, "
            "a master config, an srt-slurm recipe)")


def _reader_for_dir(path: Path) -> Reader | None:
    try:
        return reader_for_dir(path)
    except OSError:  # a folder that may not be searched: walked (and reported) instead
        return None


def _stat_error(path: str) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return "cannot read"


def _excluded(path: Path, options: Options) -> bool:
    cfg = options.config
    return bool(cfg is not None and hasattr(cfg, "excluded") and cfg.excluded(path))
