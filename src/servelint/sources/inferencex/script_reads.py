"""Read one launcher script for every slot bound to it (one job of the pipeline).

The script is read once per concurrency of a row, reads with the same inputs shared: a row
whose env agrees on the variables an earlier read looked at gets that read's launches, and
a read that never looks at ``CONC`` serves every concurrency. Identical launches of a row's
concurrencies merge into one rendering.
"""

from __future__ import annotations

import os

from servelint.model import LaunchSpec
from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.inferencex.multinode import MultiNodePart
from servelint.sources.inferencex.plan import ScriptPart, Slot
from servelint.sources.shell.script import read_script


def read_part(part: ScriptPart, time_limit: float = 10.0) -> list[tuple[int, ReadResult]]:
    """(slot index, launches and problems) of every slot of the part, in slot order."""
    cache: dict[tuple, tuple] = {}
    reported: set[int] = set()  # entries told that this script yields no launch
    out = []
    for slot in part.slots:
        problems: list[ReadProblem] = []
        merged = _read_rows(
            part.path, slot.env, slot.concs, part.repo_root, cache, time_limit, problems
        )
        specs = [_placed(spec, concs, slot, part.path) for spec, concs in merged]
        if not specs and slot.entry not in reported:
            reported.add(slot.entry)
            problems.append(
                ReadProblem(
                    part.path,
                    None,
                    f"{slot.entry_name}: launcher {os.path.basename(part.path)} "
                    "yields no engine launch the reader can see",
                    "unresolved",
                )
            )
        out.append((slot.index, ReadResult(specs, problems)))
    return out


def _placed(spec: LaunchSpec, conc_list: list[int], slot: Slot, script: str) -> LaunchSpec:
    """The launch as the benchmark runs it: the entry's image and GPU, the row's label."""
    spec.image = slot.image or None
    spec.image_span = slot.image_span
    spec.gpu = slot.gpu
    conc_text = ",".join(str(c) for c in conc_list)
    spec.rendering = f"{slot.entry_name} [{slot.row_label} conc={conc_text}]" + (
        f" · {spec.rendering}" if spec.rendering else ""
    )
    spec.origin = "inferencex"
    spec.context.update(
        {
            "entry": slot.entry_name,
            "framework": slot.framework,
            "runner": slot.runner,
            "master": slot.master,
            "script": script,
        }
    )
    if slot.image_engine is not None:
        spec.context["image_engine"] = slot.image_engine
        spec.context["image_release"] = slot.image_release or ""
    return spec


def _read_rows(
    script: str,
    env: dict[str, str | None],
    concs: list[int],
    repo_root: str | None,
    cache: dict,
    time_limit: float,
    problems: list[ReadProblem],
) -> list[tuple[LaunchSpec, list[int]]]:
    """Read the script once per concurrency (cached) and merge identical launches."""
    by_key: dict[tuple, tuple[LaunchSpec, list[int]]] = {}
    conc_free: tuple | None = None  # result of a read whose launches ignore CONC
    for conc in concs or [0]:
        row_env = dict(env, CONC=str(conc)) if concs else dict(env)
        key = (script, tuple(sorted(row_env.items(), key=lambda kv: kv[0])))
        if key not in cache and conc_free is not None:
            cache[key] = conc_free
        if key not in cache and (earlier := _same_inputs(cache, script, row_env)) is not None:
            cache[key] = earlier
        if key not in cache:
            res = read_script(
                script,
                env=row_env,
                root=repo_root or os.path.dirname(script),
                time_limit=time_limit,
            )
            cache[key] = (res.launches, res.problems)
            if not any(p.kind == "budget" for p in res.problems):
                _remember_inputs(cache, script, row_env, res.inputs, cache[key])
            if "CONC" not in res.inputs:
                conc_free = cache[key]
            problems.extend(
                p for p in res.problems if p.kind != "unresolved" or "sourced file" not in p.message
            )
        launches, _ = cache[key]
        for spec in launches:
            k = _spec_key(spec)
            if k in by_key:
                by_key[k][1].append(conc)
            else:
                by_key[k] = (_clone(spec), [conc])
    return list(by_key.values())


def _remember_inputs(
    cache: dict, script: str, env: dict[str, str | None], inputs: set[str], found: tuple
) -> None:
    """Index a read by the values of the variables it read before its last launch: a row whose
    env sets the same names and agrees on those values gets the same launches."""
    names = tuple(sorted(inputs))
    table = cache.setdefault(("inputs", script), {}).setdefault((frozenset(env), names), {})
    table[tuple(env.get(n, _UNSET) for n in names)] = found


def _same_inputs(cache: dict, script: str, env: dict[str, str | None]) -> tuple | None:
    keyset = frozenset(env)
    for (names_set, names), table in cache.get(("inputs", script), {}).items():
        if names_set == keyset:
            found = table.get(tuple(env.get(n, _UNSET) for n in names))
            if found is not None:
                return found
    return None


_UNSET = object()


def _spec_key(spec: LaunchSpec) -> tuple:
    return (
        spec.engine,
        spec.entrypoint,
        spec.anchor,
        tuple((t.text, t.symbolic, t.span) for t in spec.argv),
        tuple((e.name, e.value, e.symbolic) for e in spec.env),
        tuple((i.requirement, i.span) for i in spec.installs),
        spec.rendering,
        tuple(sorted(spec.context.items())),
    )


def _clone(spec: LaunchSpec) -> LaunchSpec:
    return LaunchSpec(
        spec.engine,
        spec.entrypoint,
        list(spec.argv),
        spec.path,
        spec.anchor,
        list(spec.env),
        spec.image,
        spec.image_span,
        spec.release,
        spec.release_span,
        spec.floor,
        spec.floor_span,
        spec.gpu,
        list(spec.installs),
        spec.rendering,
        spec.origin,
        dict(spec.context),
        option_file=spec.option_file,
    )


def read_plan_part(part: ScriptPart | MultiNodePart, time_limit: float
                   ) -> list[tuple[int, ReadResult]]:
    """One part of a plan: a multi-node entry binds its own recipe; a script part is read
    for all its rows."""
    if isinstance(part, MultiNodePart):
        return part.read()
    return read_part(part, time_limit)
