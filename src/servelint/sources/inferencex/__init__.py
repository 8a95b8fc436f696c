"""InferenceX benchmark configs: a checkout (``configs/*-master.yaml`` + ``benchmarks/``) or
one master config, each single-node entry bound to the launcher script it runs.

The unit is read in parts: ``expand`` binds every entry's rows to launcher scripts (the
plan), ``read_part`` reads one script for all its rows; the pipeline runs the parts as jobs
of its one worker pool."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Expansion, Head, ReadContext, ReadResult, on_first_use

read_inferencex = on_first_use("servelint.sources.inferencex.reader", "read_inferencex")
read_plan_part = on_first_use("servelint.sources.inferencex.script_reads", "read_plan_part")

plan_entries = on_first_use("servelint.sources.inferencex.plan", "plan")

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
        found = plan_entries(path)
        return Expansion(found.problems, found.parts, found.slots)

    def read_part(self, part, ctx: ReadContext) -> list[tuple[int, ReadResult]]:
        return read_plan_part(part, ctx.time_limit)

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        result = read_inferencex(path, time_limit=ctx.time_limit)
        return ReadResult(list(result.launches), list(result.problems))
