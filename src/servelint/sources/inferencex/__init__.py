"""InferenceX benchmark configs: a checkout (``configs/*-master.yaml`` + ``benchmarks/``) or
one master config, each single-node entry bound to the launcher script it runs; and a
launcher script of a checkout checked on its own, read with the rows that bind it.

The unit is read in parts: ``expand`` binds every entry's rows to launcher scripts (the
plan), ``read_part`` reads one script for all its rows; the pipeline runs the parts as jobs
of its one worker pool. A script named on its own (a pre-commit hook passes only changed
files) is expanded to its own part of its checkout's plan: the rows that bind it, with
their images, env and hardware, as the checkout would read it; a script no row binds is
read by the reader that would read it outside a checkout (``expand`` gives None, ``read``
hands it on)."""

from __future__ import annotations

import os
from pathlib import Path

from servelint.sources.base import Expansion, Head, ReadContext, ReadResult, on_first_use
from servelint.sources.dispatch import READERS, reader_for

read_inferencex = on_first_use("servelint.sources.inferencex.reader", "read_inferencex")
read_script_unit = on_first_use("servelint.sources.inferencex.reader", "read_script_unit")
read_plan_part = on_first_use("servelint.sources.inferencex.script_reads", "read_plan_part")

plan_entries = on_first_use("servelint.sources.inferencex.plan", "plan")
plan_of_script = on_first_use("servelint.sources.inferencex.plan", "plan_of_script")

_YAML = {".yaml", ".yml"}


def is_checkout(path: Path) -> bool:
    """An InferenceX checkout: ``configs/*-master.yaml`` beside ``benchmarks/``."""
    configs = path / "configs"
    return configs.is_dir() and (path / "benchmarks").is_dir() and any(configs.glob("*-master.yaml"))


def checkout_of(path: str | Path) -> str | None:
    """The InferenceX checkout a file lies in (its nearest such folder), or None."""
    for folder in Path(os.path.abspath(path)).parents:
        try:
            if is_checkout(folder):
                return str(folder)
        except OSError:  # a folder that may not be searched
            continue
    return None


class InferenceXReader:
    name = "inferencex"
    binds = True  # its launches are those of launcher scripts it binds: read those first

    def claims_dir(self, path: Path) -> bool:
        return is_checkout(path)

    def claims(self, path: Path, head: Head) -> bool:
        name = path.name
        if path.suffix.lower() == ".sh":  # a launcher script of a checkout
            return checkout_of(path) is not None
        if path.suffix.lower() not in _YAML:
            return False
        if name.endswith(("-master.yaml", "-master.yml")):
            return True
        return "master" in name and "image:" in head.text() and "runner:" in head.text()

    def expand(self, path: str, ctx: ReadContext) -> Expansion | None:
        root = _script_checkout(path)
        found = plan_entries(path) if root is None else plan_of_script(path, root, ctx.plans)
        if root is not None and not found.parts:
            return None  # no row binds the script: read whole (``read``)
        return Expansion(found.problems, found.parts, found.slots)

    def read_part(self, part, ctx: ReadContext) -> list[tuple[int, ReadResult]]:
        return read_plan_part(part, ctx.time_limit)

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        root = _script_checkout(path)
        if root is not None:
            bound = read_script_unit(path, root, ctx)
            if bound is not None:
                return bound
            other = reader_for(Path(path), tuple(r for r in READERS if r is not self))
            if other is None:
                return ReadResult()
            return other.read(path, ctx)  # as it is read outside a checkout
        result = read_inferencex(path, time_limit=ctx.time_limit)
        return ReadResult(list(result.launches), list(result.problems))


def _script_checkout(path: str) -> str | None:
    """The checkout of a launcher script (a file that is no master config), or None."""
    if os.path.isdir(path) or Path(path).suffix.lower() in _YAML:
        return None
    return checkout_of(path)
