"""srt-slurm recipes: the YAML ``srtctl`` turns into Dynamo worker launches (one launch per
worker role and variant, built as srtctl builds the command; see docs/multi-node.md)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult
from servelint.sources.srt_slurm.reader import RecipeResult, looks_like_srt_slurm, read_recipe

__all__ = ["RecipeResult", "SrtSlurmReader", "looks_like_srt_slurm", "read_recipe"]

_YAML = {".yaml", ".yml"}


class SrtSlurmReader:
    name = "srt-slurm"

    def claims(self, path: Path, head: Head) -> bool:
        return path.suffix.lower() in _YAML and looks_like_srt_slurm(head.text(1 << 16))

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        from servelint.sources.srt_slurm.binding import hold_unchecked

        got = read_recipe(path)
        specs, held = hold_unchecked(got.launches)
        return ReadResult(specs, got.problems + held, got.deps)
