"""The multi-node entries of an InferenceX checkout, read as one part of the unit: recipe
entries bound to their srt-slurm recipes (``servelint.sources.srt_slurm.binding``), the
others to their wrapper launchers (:mod:`.wrappers`), and every recipe file read."""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.model import Span
from servelint.sources.base import ReadResult
from servelint.sources.inferencex.wrappers import bind_wrapper
from servelint.sources.srt_slurm.binding import bind_inferencex


@dataclass(slots=True)
class MultiNodePart:
    """The part of an InferenceX checkout that holds its multi-node entries."""

    path: str  # the checkout
    repo_root: str
    index: int  # its one slot
    entries: list[tuple[str, str]] = field(default_factory=list)  # (master, entry name)
    wrappers: list[tuple[str, dict, Span]] = field(default_factory=list)  # no recipe
    slots: list = field(default_factory=list)  # no single-node slots (walk stats skip it)
    stats: dict = field(default_factory=dict)
    recipes: bool = True  # the srt-slurm recipes read too (False: the wrappers only)

    @property
    def weight(self) -> int:
        return 400  # ~469 recipe files: read in a job of its own

    def add(self, master: str, name: str, data: dict, span: Span) -> None:
        self.entries.append((master, name))
        recipe = "CONFIG_FILE=" in repr(data.get("scenarios"))
        if not recipe or str(data.get("framework")).startswith("llmd"):
            self.wrappers.append((name, data, span))

    def read(self) -> list[tuple[int, ReadResult]]:
        out = ReadResult()
        outcomes: dict[str, int] = {}
        for name, data, span in self.wrappers:
            launches, problems, outcome = bind_wrapper(name, data, span, self.repo_root)
            out.specs.extend(launches)
            out.problems.extend(problems)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        wrapped = {f"wrapper_{k}": v for k, v in outcomes.items()}
        if not self.recipes:
            self.stats = wrapped
            return [(self.index, out)]
        bound = bind_inferencex(self.entries, self.repo_root, outcomes)
        out.specs.extend(bound.launches)
        out.problems.extend(bound.problems)
        self.stats = {**bound.stats, **wrapped}
        return [(self.index, out)]
