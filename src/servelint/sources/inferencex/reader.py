"""An InferenceX checkout or master config read whole, serially: the plan, each script
part's reads, the slots put back in order (the pipeline does the same with one job per
script part; this is the reader for tests and tools)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from servelint.model import LaunchSpec
from servelint.sources.base import ReadContext, ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.inferencex.multinode import MultiNodePart
from servelint.sources.inferencex.plan import Plan, plan, plan_of_script
from servelint.sources.inferencex.script_reads import read_part

_SINGLE_NODE_ENGINES = ("vllm", "sglang")


@dataclass
class InferenceXResult:
    """The launches of an InferenceX checkout or master config, its problems and counts."""

    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


def read_inferencex(
    root_or_file: str, *, only: set[str] | None = None, time_limit: float = 10.0
) -> InferenceXResult:
    """Bind every single-node master entry to its launcher script and read its launches
    (``only``: the named entries)."""
    t0 = time.monotonic()
    result = read_plan(plan(root_or_file, only), time_limit)
    result.stats["seconds"] = round(time.monotonic() - t0, 2)
    return result


def read_script_unit(script: str, root: str, ctx: ReadContext) -> ReadResult | None:
    """A launcher script of ``root`` read on its own with the rows that bind it (None: no
    row binds it)."""
    found = plan_of_script(script, root, ctx.plans)
    if not found.parts:
        return None
    result = read_plan(found, ctx.time_limit)
    bound = sorted({os.path.realpath(s.anchor.path) for s in result.launches}
                   - {os.path.realpath(script)})
    return ReadResult(result.launches, result.problems, bound=bound)


def read_plan(found: Plan, time_limit: float) -> InferenceXResult:
    """The launches of a plan's parts, in slot order, its problems and counts."""
    slots: list[ReadResult] = [ReadResult()] * found.slots
    multi: dict = {}
    for part in found.parts:
        reads = part.read() if isinstance(part, MultiNodePart) else read_part(part, time_limit)
        for index, read in reads:
            slots[index] = read
        if isinstance(part, MultiNodePart):
            multi = part.stats
    result = InferenceXResult(problems=unique_problems(found, slots))
    for read in slots:
        result.launches.extend(read.specs)
    result.stats = walk_stats(found, slots)
    result.stats["multi_node"] = multi
    return result


def unique_problems(found: Plan, slots: list[ReadResult]) -> list[ReadProblem]:
    """The binding problems, then each slot's, each (message, place) once."""
    out: list[ReadProblem] = []
    seen: set[tuple] = set()
    for p in [*found.problems, *(p for read in slots for p in read.problems)]:
        if (p.message, p.span, p.path) not in seen:
            seen.add((p.message, p.span, p.path))
            out.append(p)
    return out


def walk_stats(found: Plan, slots: list[ReadResult]) -> dict:
    """Counts of the walk: entries, entries bound, launch sites, spec-decoding coverage."""
    by_entry: dict[int, list[LaunchSpec]] = {}
    scripts: dict[str, bool] = {}
    for part in found.parts:
        for slot in part.slots:
            specs = slots[slot.index].specs
            by_entry.setdefault(slot.entry, []).extend(specs)
            if slot.framework in _SINGLE_NODE_ENGINES:
                scripts[part.path] = scripts.get(part.path, False) or bool(specs)
    launches = [s for read in slots for s in read.specs]
    sites: dict[str, set] = {}
    for spec in launches:
        sites.setdefault(spec.engine, set()).add(
            (spec.anchor.path, spec.anchor.line, spec.anchor.column)
        )
    multi = sum(1 for _, m, _ in found.entries if m)
    symbolic = sum(1 for s in launches if any(t.symbolic for t in s.argv))
    n = len(scripts)
    return {
        "entries": len(found.entries),
        "multi_node_entries": multi,
        "single_node_entries": len(found.entries) - multi,
        "entries_bound": sum(1 for specs in by_entry.values() if specs),
        "launches": len(launches),
        "launches_symbolic": symbolic,
        "launches_fully_resolved": len(launches) - symbolic,
        "launch_sites_per_engine": {k: len(v) for k, v in sorted(sites.items())},
        "single_node_vllm_sglang_scripts": n,
        "single_node_vllm_sglang_scripts_with_spec": sum(scripts.values()),
        "single_node_vllm_sglang_spec_rate": round(100.0 * sum(scripts.values()) / n, 1)
        if n
        else None,
    }
