"""InferenceX benchmark configs: a checkout (``configs/*-master.yaml`` + ``benchmarks/``) or
one master config, each single-node entry bound to the launcher script it runs.

The unit is read in parts: ``expand`` binds every entry's rows to launcher scripts (the
plan), ``read_part`` reads one script for all its rows; the pipeline runs the parts as jobs
of its one worker pool."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Expansion, Head, ReadContext, ReadResult
from servelint.sources.inferencex.multinode import MultiNodePart
from servelint.sources.inferencex.plan import plan
from servelint.sources.inferencex.reader import read_inferencex
from servelint.sources.inferencex.script_reads import read_part as read_script_part

_YAML = {".yaml", ".yml"}


class InferenceXReader:
    name = "inferencex"
    binds = True  # its launches are those of launcher scripts it binds: read those first

    def claims_dir(self, path: Path) -> bool:
        configs = path / "configs"
        return (
            configs.is_dir()
            and (path / "benchmarks").is_dir()
            and any(configs.glob("*-master.yaml"))
        )

    def claims(self, path: Path, head: Head) -> bool:
        name = path.name
        if path.suffix.lower() not in _YAML:
            return False
        if name.endswith(("-master.yaml", "-master.yml")):
            return True
        return "master" in name and "image:" in head.text() and "runner:" in head.text()

    def expand(self, path: str, ctx: ReadContext) -> Expansion:
        found = plan(path)
        return Expansion(found.problems, found.parts, found.slots)

    def read_part(self, part, ctx: ReadContext) -> list[tuple[int, ReadResult]]:
        if isinstance(part, MultiNodePart):
            return part.read()

        return read_script_part(part, ctx.time_limit)

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        result = read_inferencex(path, time_limit=ctx.time_limit)
        return ReadResult(list(result.launches), list(result.problems))
