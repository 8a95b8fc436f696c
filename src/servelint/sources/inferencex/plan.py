"""Bind an InferenceX checkout (or one master config) to launcher scripts: the plan.

Each single-node master entry is expanded into its rows, each row bound to the launcher
script(s) its runner's fleets run (:mod:`.layout`); one ``Slot`` per (entry, row, script),
in the order the repo's own pipeline walks them. The slots are grouped by script into
``ScriptPart``s: the reads of one script depend only on that script's earlier reads, so the
pipeline reads each part as a job of its own (:mod:`.script_reads`) and puts the slots back
in order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from servelint.engines.images import resolve_image
from servelint.model import Span
from servelint.sources.common.deps import note, recording
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yaml_bounded import read_yaml_bytes, safe_load_bounded
from servelint.sources.inferencex.layout import _Binder, _Entry, _find_layout, _load_entries, _rows
from servelint.sources.inferencex.multinode import MultiNodePart
from servelint.sources.inferencex.wrappers import find_wrapper


@dataclass(slots=True)
class Slot:
    """One row of one entry read with one launcher script (what its launches get)."""

    index: int  # order of the serial walk
    entry: int  # order of the entry
    entry_name: str
    master: str
    entry_span: Span
    row_label: str
    env: dict[str, str | None]
    concs: list[int]
    image: str
    image_span: Span | None
    gpu: str | None
    framework: str
    runner: str
    image_engine: str | None = None
    image_release: str | None = None


@dataclass(slots=True)
class ScriptPart:
    """The slots of one launcher script, read together (one job)."""

    path: str
    repo_root: str | None
    slots: list[Slot] = field(default_factory=list)

    @property
    def weight(self) -> int:
        return sum(max(1, len(s.concs)) for s in self.slots)


@dataclass(slots=True)
class Plan:
    """How an InferenceX checkout is read: its parts in slot order and the walk's counts."""

    problems: list[ReadProblem] = field(default_factory=list)  # (binding problems)
    parts: list[ScriptPart] = field(default_factory=list)  # in order of first slot
    slots: int = 0
    # entry order -> (name, multi-node, framework): the walk's counts
    entries: list[tuple[str, bool, str]] = field(default_factory=list)


def _read_runners(runners_path: str, out: Plan) -> Any:
    """The runners file parsed, or None (with a problem) when it cannot be read."""
    note(runners_path)
    try:
        return safe_load_bounded(read_yaml_bytes(runners_path)) or {}
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as exc:
        out.problems.append(ReadProblem(runners_path, None, f"cannot read: {exc}"))
        return None


def plan(root_or_file: str, only: set[str] | None = None) -> Plan:
    """The slots of every single-node master entry (``only``: the named entries)."""
    out = Plan()
    masters, repo_root, runners_path = _find_layout(root_or_file)
    if not masters:
        out.problems.append(
            ReadProblem(
                root_or_file,
                None,
                "no InferenceX master config found (configs/*-master.yaml)",
                "unresolved",
            )
        )
        return out
    runners = _read_runners(runners_path, out) if runners_path else None
    parts: dict[str, ScriptPart] = {}
    multi_part = MultiNodePart(repo_root, repo_root, -1) if repo_root else None
    for master in masters:
        binder = _Binder(master, repo_root, runners)
        for entry in _load_entries(master, out.problems):
            if only is not None and entry.name not in only:
                continue
            multi = bool(entry.data.get("multinode"))
            out.entries.append((entry.name, multi, str(entry.data.get("framework", ""))))
            if multi:
                if multi_part is not None:
                    multi_part.add(entry.path, entry.name, entry.data, entry.span)
                continue
            try:
                _bind_entry(entry, len(out.entries) - 1, binder, out, parts, repo_root)
            except (TypeError, ValueError, AttributeError, KeyError) as exc:  # wrong shapes
                out.problems.append(
                    ReadProblem(
                        entry.path,
                        entry.span,
                        f"{entry.name}: a value of the wrong type ({exc}); entry skipped",
                    )
                )
    out.parts = list(parts.values())
    if multi_part is not None:  # multi-node entries and every srt-slurm recipe: one part
        multi_part.index = out.slots
        out.slots += 1
        out.parts.append(multi_part)
    return out


def _bind_entry(
    entry: _Entry,
    order: int,
    binder: _Binder,
    out: Plan,
    parts: dict[str, ScriptPart],
    repo_root: str | None,
) -> None:
    d = entry.data
    label = str(d.get("runner", ""))
    fleets, runner_problem = binder.fleets(label)
    if runner_problem:
        out.problems.append(
            ReadProblem(
                entry.path,
                entry.spans.get("runner", entry.span),
                f"{entry.name}: {runner_problem}",
                "unresolved",
            )
        )
    if not fleets:
        return
    image = str(d.get("image", ""))
    ref = resolve_image(image) if image else None
    reported: set[str] = set()
    for sdir, row_label, env, concs in list(_rows(entry)):
        spec_kind = env["SPEC_DECODING"]
        targets: dict[str, str | None] = {}
        tried_all: list[str] = []
        for fleet in fleets:
            path, gpu, tried = binder.resolve(fleet, sdir, {**d, "_spec": spec_kind})
            tried_all += tried
            if path:
                targets.setdefault(path, gpu)
        if not targets:
            names = sorted({os.path.basename(t) for t in tried_all})
            why = (
                f"tried {', '.join(names)}"
                if names
                else f"fleet(s) {', '.join(fleets)} have no single-node launcher"
            )
            message = (
                f"{entry.name}: no launcher script for {sdir} spec={spec_kind} on "
                f"runner {label!r} ({why})"
            )
            if message not in reported:  # one problem per entry and script name, not per row
                reported.add(message)
                out.problems.append(ReadProblem(entry.path, entry.span, message, "unresolved"))
            continue
        for script, gpu in targets.items():
            slot = Slot(
                out.slots,
                order,
                entry.name,
                entry.path,
                entry.span,
                row_label,
                env,
                concs,
                image,
                entry.spans.get("image"),
                gpu,
                str(d.get("framework", "")),
                label,
            )
            if ref is not None:
                slot.image_engine, slot.image_release = ref.engine, ref.release or ""
            out.slots += 1
            parts.setdefault(script, ScriptPart(script, repo_root)).slots.append(slot)


def plan_of_script(script: str, root: str, memo: dict[str, tuple[Plan, list[str]]]) -> Plan:
    """The part of ``root``'s plan that reads launcher ``script`` on its own: the
    single-node rows bound to it, read at the path as given, and the multi-node entries
    whose wrapper launcher it is (slot numbers kept; the binding problems, which are the
    master configs', left to them). The checkout's plan is made once per run (``memo``)."""
    made = memo.get(root)
    if made is None:
        with recording() as seen:
            whole = plan(root)
        made = memo[root] = (whole, sorted(seen))
    whole, read = made
    for path in read:  # this unit depends on them too
        note(path)
    out = Plan(entries=whole.entries, slots=whole.slots)
    real = os.path.realpath(script)
    for part in whole.parts:
        if isinstance(part, MultiNodePart):
            mine = [w for w in part.wrappers if _is_wrapper(real, root, w[1])]
            if mine:
                only = MultiNodePart(part.path, part.repo_root, part.index, recipes=False)
                only.wrappers = mine
                out.parts.append(only)
        elif os.path.realpath(part.path) == real:
            out.parts.append(ScriptPart(script, part.repo_root, part.slots))
    return out


def _is_wrapper(real: str, root: str, data: dict) -> bool:
    found = find_wrapper(root, data)
    return found is not None and os.path.realpath(found) == real
