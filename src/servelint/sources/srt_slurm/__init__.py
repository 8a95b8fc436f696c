"""srt-slurm recipes: the YAML ``srtctl`` turns into Dynamo worker launches (one launch per
worker role and variant, built as srtctl builds the command; see docs/multi-node.md)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult
from servelint.sources.srt_slurm.binding import hold_unchecked
from servelint.sources.srt_slurm.reader import RecipeResult, read_recipe

__all__ = ["RecipeResult", "SrtSlurmReader", "looks_like_srt_slurm", "read_recipe"]

_YAML = {".yaml", ".yml"}


def looks_like_srt_slurm(head: str) -> bool:
    """True for a recipe srtctl reads: a ``backend:`` block with ``type`` and ``resources:``
    or an override ``base:`` block, at the top level."""
    text = "\n" + head
    top_level = "\nbackend:" in text and ("\nresources:" in text or "\nfrontend:" in text)
    return top_level or ("\nbase:" in text and "backend:" in text and "resources:" in text)


class SrtSlurmReader:
    name = "srt-slurm"

    def claims(self, path: Path, head: Head) -> bool:
        return path.suffix.lower() in _YAML and looks_like_srt_slurm(head.text(1 << 16))

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        got = read_recipe(path)
        specs, held = hold_unchecked(got.launches)
        return ReadResult(specs, got.problems + held, got.deps)
