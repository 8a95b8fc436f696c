"""InferenceX multi-node master entries -> the srt-slurm recipes their launchers run.

A ``dynamo-*`` (or multi-node ``vllm``) entry names its recipe in ``additional-settings`` as
``CONFIG_FILE=<ref>[:<override selector>]`` (benchmark-format §7). ``<ref>`` is spelled
``recipes/<path>`` (relative to the srt-slurm checkout the launcher copies
``benchmarks/multi_node/srt-slurm-recipes/`` into), ``benchmarks/multi_node/...`` (a repo
path) or a bare llm-d recipe name. The launcher's ``containers:`` table maps the recipe's
``model.container`` to the entry's ``image`` (plus the aliases ``dynamo-sglang`` and
``dynamo-trtllm``); the repository's AGENTS.md wants ``model.container`` equal to ``image``.
Recipes no entry binds are read on their own, so every recipe file is read.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

from servelint import profiles
from servelint.engines import registry
from servelint.model import LaunchSpec, Span
from servelint.sources.common.problems import ReadProblem
from servelint.sources.srt_slurm.command import is_runtime_value
from servelint.sources.srt_slurm.reader import read_recipe
from servelint.sources.srt_slurm.tree import Node, RecipeYamlError, load_tree

RECIPES_DIR = os.path.join("benchmarks", "multi_node", "srt-slurm-recipes")
LLMD_DIR = os.path.join("benchmarks", "multi_node", "llm-d-recipes")
CONTAINER_ALIASES = ("dynamo-sglang", "dynamo-trtllm")
_BRANCH = re.compile(r"github\.com/NVIDIA/srt-slurm/(?:blob|tree)/([^/\s]+)/")
_SELECTOR = re.compile(r"^(?P<file>.+?\.ya?ml)(?::(?P<sel>.+))?$")


@dataclass(slots=True)
class Reference:
    """A srt-slurm recipe an InferenceX entry names, and where."""

    entry: str
    ref: str  # as written, selector included
    span: Span
    rows: list[str] = field(default_factory=list)


@dataclass(slots=True)
class BindResult:
    """The launches of the srt-slurm recipes a master config binds, with problems and counts."""

    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


def _settings(point: Node) -> list[Node]:
    out = []
    for where in (point, point.get("prefill"), point.get("decode")):
        items = where.get("additional-settings") if where is not None and where.is_map else None
        if items is not None and items.is_list:
            out.extend(n for n in items.value if isinstance(n.value, str))  # type: ignore[union-attr]
    return out


def references(entry_name: str, entry: Node) -> list[Reference]:
    """Every distinct CONFIG_FILE of one entry, with the rows (sequence lengths and
    concurrencies) that run it."""
    found: dict[str, Reference] = {}
    scenarios = entry.get("scenarios")
    for _, scen in scenarios.entries() if scenarios is not None else []:
        for block in scen.node.value if scen.node.is_list else []:
            space = block.get("search-space") if block.is_map else None
            isl, osl = block.get("isl"), block.get("osl")
            seq = f"{isl.value}/{osl.value}" if isl is not None and osl is not None else "agentic"
            for point in space.value if space is not None and space.is_list else []:
                if not point.is_map:
                    continue
                conc = point.get("conc-list")
                row = (
                    f"{seq} conc={','.join(str(c.value) for c in conc.value)}"
                    if conc is not None and conc.is_list
                    else seq
                )
                for item in _settings(point):
                    name, _, value = str(item.value).partition("=")
                    if name != "CONFIG_FILE" or not value:
                        continue
                    ref = found.setdefault(value, Reference(entry_name, value, item.span))
                    if row not in ref.rows:
                        ref.rows.append(row)
    return list(found.values())


def resolve_ref(ref: str, repo_root: str) -> tuple[str, str | None, str]:
    """-> (path, selector, spelling) for a CONFIG_FILE value."""
    m = _SELECTOR.match(ref)
    file, sel = (m.group("file"), m.group("sel")) if m else (ref, None)
    if file.startswith("recipes/"):
        return os.path.join(repo_root, RECIPES_DIR, file[len("recipes/") :]), sel, "srt-slurm"
    if "/" in file:
        return os.path.join(repo_root, file), sel, "repo"
    return os.path.join(repo_root, LLMD_DIR, file), sel, "llm-d"


def _branch_note(lines: list[str], line: int) -> str:
    for i in range(line - 2, max(-1, line - 5), -1):
        m = _BRANCH.search(lines[i]) if 0 <= i < len(lines) else None
        if m:
            return f" (branch {m.group(1)!r}, named in the comment on line {i + 1})"
    return ""


def bind_master(
    master: str, names: set[str], repo_root: str, result: BindResult, read: set[str]
) -> Counter:
    """Bind the named multi-node entries of one master config; -> counts per outcome."""
    counts: Counter = Counter()
    try:
        with open(master, encoding="utf-8") as fh:
            text = fh.read()
        root = load_tree(text, master)
    except (OSError, UnicodeError, RecipeYamlError) as exc:
        result.problems.append(ReadProblem(master, None, f"cannot read master config: {exc}"))
        return counts
    lines = text.splitlines()
    for name, entry in root.entries() if root is not None else []:
        if name not in names or not entry.node.is_map:
            continue
        refs = references(name, entry.node)
        if not refs:
            continue
        bound = False
        for ref in refs:
            bound |= _bind_ref(name, entry.node, ref, repo_root, lines, result, read, counts)
        counts["entries_bound" if bound else "entries_unbound"] += 1
    return counts


def _bind_ref(
    name: str,
    entry: Node,
    ref: Reference,
    repo_root: str,
    lines: list[str],
    result: BindResult,
    read: set[str],
    counts: Counter,
) -> bool:
    path, selector, spelling = resolve_ref(ref.ref, repo_root)
    counts[f"refs_{spelling}"] += 1
    if spelling == "llm-d":
        counts["refs_llmd_recipe"] += 1
        return False  # an llm-d recipe: read through the llm-d launcher, not srtctl
    if not os.path.isfile(path):
        counts["refs_outside_repo"] += 1
        result.problems.append(
            ReadProblem(
                ref.span.path,
                ref.span,
                f"{name}: CONFIG_FILE {ref.ref} is not in this repository (looked for "
                f"{os.path.relpath(path, repo_root)}); srtctl reads it from the NVIDIA/srt-slurm "
                f"checkout{_branch_note(lines, ref.span.line)}, so its launches are not checked",
                "unresolved",
                "elsewhere",  # another checkout's file by design: a note (problems.py)
            )
        )
        return False
    counts["refs_resolved"] += 1
    read.add(os.path.realpath(path))
    image_node = entry.get("image")
    image = str(image_node.value) if image_node is not None else ""
    containers = {image: image, **dict.fromkeys(CONTAINER_ALIASES, image)} if image else {}
    got = read_recipe(path, selector=selector, containers=containers)
    for p in got.problems:
        if p.kind == "unresolved" and "override selector" in p.message:
            p = ReadProblem(
                ref.span.path, ref.span, f"{name}: CONFIG_FILE {ref.ref}: {p.message}", "unresolved"
            )
        result.problems.append(p)
    mismatched = set()
    for spec in got.launches:
        container = spec.context.get("recipe_container", "")
        if (
            image
            and container
            and container != image
            and container not in CONTAINER_ALIASES
            and container not in mismatched
        ):
            mismatched.add(container)
            result.problems.append(
                ReadProblem(
                    spec.image_span.path if spec.image_span else spec.path,
                    spec.image_span,
                    f"{name}: the recipe's model.container {container!r} differs from the "
                    f"entry's image {image!r} ({ref.span.path}:{image_node.span.line}); the "
                    "launcher's containers table does not map it, so the job runs "
                    f"{container!r} — AGENTS.md wants them equal",
                    "unresolved",
                )
            )
        spec.rendering = f"{name} [{'; '.join(ref.rows)}] {spec.rendering}"
        spec.context.update({"entry": name, "master": ref.span.path, "config_file": ref.ref})
        result.launches.append(spec)
    return bool(got.launches)


def read_unbound(repo_root: str, read: set[str], result: BindResult) -> int:
    """Read every recipe file no entry bound (no container table: aliases stay unknown)."""
    base = os.path.join(repo_root, RECIPES_DIR)
    n = 0
    for folder, dirs, files in os.walk(base):
        dirs.sort()
        for fname in sorted(files):
            path = os.path.join(folder, fname)
            if not fname.endswith((".yaml", ".yml")) or os.path.realpath(path) in read:
                continue
            n += 1
            read.add(os.path.realpath(path))
            got = read_recipe(path)
            result.launches.extend(got.launches)
            result.problems.extend(got.problems)
    return n


def summary(result: BindResult, counts: Counter, files_read: int) -> str:
    per: Counter = Counter()
    recipe_symbolic = 0
    for spec in result.launches:
        per[f"{spec.engine} {spec.context.get('role', '?')}"] += 1
        # srtctl's run-time values are "<name>" placeholders; anything else symbolic came
        # from the recipe itself
        recipe_symbolic += any(t.symbolic and not is_runtime_value(t.text) for t in spec.argv)
    rendered = ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
    n = len(result.launches)
    return (
        f"srt-slurm recipes: {files_read} files read; {n} launches rendered (workers and frontends) "
        f"({rendered}); {n - recipe_symbolic} fully resolved from the recipe, "
        f"{recipe_symbolic} with recipe values left symbolic (srtctl's run-time values: "
        f"node IPs, ports, log paths stay symbolic in every launch). Multi-node entries: "
        f"{counts['entries_bound']} bound to a recipe, {counts['entries_unbound']} not "
        f"(CONFIG_FILE references: {counts['refs_resolved']} resolved, "
        f"{counts['refs_outside_repo']} outside this repository, "
        f"{counts['refs_llmd_recipe']} llm-d recipes, bound through the llm-d launcher)"
    )


def hold_unchecked(launches: list[LaunchSpec]) -> tuple[list[LaunchSpec], list[ReadProblem]]:
    """Launches of engines servelint has no profile for are kept out of checking, with one
    note per recipe file (TensorRT-LLM until its profiles land), never silently."""
    kept: list[LaunchSpec] = []
    held: dict[tuple[str, str], list[LaunchSpec]] = {}
    for spec in launches:
        engine = registry.find(spec.engine)
        # an engine with profiles may still not model this entrypoint (Dynamo's trtllm worker)
        if profiles.available(spec.engine) and (engine is None or engine.judges(spec.entrypoint)):
            kept.append(spec)
        else:
            held.setdefault((spec.path, spec.engine), []).append(spec)
    notes = []
    for (path, engine), specs in sorted(held.items()):
        roles = sorted({s.context.get("role", "?") for s in specs})
        notes.append(
            ReadProblem(
                path,
                specs[0].anchor,
                f"{len(specs)} {engine} worker "
                f"launch(es) rendered ({', '.join(roles)}: "
                f"{specs[0].entrypoint}), not checked: servelint has no "
                + (
                    f"{engine} profile yet"
                    if not profiles.available(engine)
                    else f"argv model for {specs[0].entrypoint} yet"
                ),
                "unsupported",
            )
        )
    return kept, notes


def bind_inferencex(
    entries: list[tuple[str, str]], repo_root: str, wrappers: dict[str, int] | None = None
) -> BindResult:
    """Bind ``(master path, entry name)`` multi-node entries and read every recipe."""
    result = BindResult()
    read: set[str] = set()
    counts: Counter = Counter()
    by_master: dict[str, set[str]] = {}
    for master, name in entries:
        by_master.setdefault(master, set()).add(name)
    for master, names in by_master.items():
        counts.update(bind_master(master, names, repo_root, result, read))
    bound_files = len(read)
    unbound = (
        read_unbound(repo_root, read, result)
        if os.path.isdir(os.path.join(repo_root, RECIPES_DIR))
        else 0
    )
    note = summary(result, counts, bound_files + unbound)
    if wrappers:
        note += (
            f"; wrapper launchers (AMD *-disagg, llm-d, TileRT): "
            f"{wrappers.get('launches', 0)} with launches read, "
            f"{wrappers.get('no_launch', 0)} whose Slurm job's scripts yield no launch the "
            f"shell reader resolves, {wrappers.get('no_launcher', 0)} without a launcher file"
        )
    result.launches, held = hold_unchecked(result.launches)
    result.problems.extend(held)
    if by_master or bound_files + unbound:
        first = next(iter(by_master), repo_root)
        result.problems.append(ReadProblem(first, None, note, "unsupported"))
    result.stats = {
        **counts,
        "srt_slurm_files_read": bound_files + unbound,
        "srt_slurm_files_bound": bound_files,
    }
    return result
