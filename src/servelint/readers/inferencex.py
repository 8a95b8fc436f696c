"""InferenceX master configs -> the engine launches their single-node benchmark points run.

Follows the repo's own pipeline (docs: benchmark-format.md): each single-node master
entry is expanded like ``generate_sweep_configs.py`` (concurrency ranges, defaults,
``max-model-len = isl + osl + 256``), its runner label is mapped to fleets through
``runners.yaml``, each fleet's launcher naming rule picks the script, and the script is
read by the static bash reader with the env the workflow passes (section 3). Rows whose
launches are identical are merged into one rendering.

Launcher script lookup order, for candidate file name N and scenario dir S
(``fixed_seq_len`` / ``agentic``):

1. ``<root>/benchmarks/single_node/S/N`` when the master file sits in a repo checkout
   (``<root>/configs/<master>.yaml``);
2. ``<master dir>/N`` (a master file copied next to its launcher, like the seed pair);
3. ``<master dir>/S/N``.

``runners.yaml`` is looked up as ``<root>/configs/runners.yaml`` then
``<master dir>/runners.yaml``; without one, the runner label itself names the GPU and
the generic rule ``P_Q_<gpu>_F[_mtp].sh`` then ``P_Q_<gpu>[_mtp].sh`` applies.
Multi-node entries (srt-slurm recipes, Slurm wrappers) are counted, not bound.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import yaml

from servelint import hardware
from servelint.engines.images import resolve_image
from servelint.model import LaunchSpec, Span
from servelint.readers.bash import ScriptResult, read_script
from servelint.readers.inferencex_parallel import map_in_workers, may_fork
from servelint.readers.problems import ReadProblem

# fleet -> (gpu code in script names, naming rule); None = no single-node launcher
FLEET_RULES: dict[str, tuple[str, str] | None] = {
    "h100-cw": ("h100", "plain"), "h100-dgxc-slurm": ("h100", "plain"),
    "h100-cr": ("h100", "plain"),
    "h200-cw": ("h200", "trt"), "h200-nb": ("h200", "trt"),
    "h200-dgxc-slurm": ("h200", "fw-then-trt"),
    "b200-cw": ("b200", "fw-then-trt"), "b200-nb": ("b200", "fw-then-trt"),
    "b200-dgxc": ("b200", "fw-then-trt"), "b200-dgxc-slurm": ("b200", "fw-then-trt"),
    "b300-nv": ("b300", "fw-then-trt"),
    "mi300x-amds": ("mi300x", "plain"),
    "mi325x-amds": ("mi325x", "plain"), "mi325x-tw": ("mi325x", "plain"),
    "mi355x-amds": ("mi355x", "fw-then-atom"),
    "rtx6000pro-lat": ("rtx6000pro", "fw-then-bare"),
    "b200-nscale-slurm": None, "gb200-nv": None, "gb300-nv": None,  # multi-node only
    "b300-cw": None, "mi300x-tw": None,  # labelled in runners.yaml, no launcher file
}
_GPU_ALIASES = {"rtx6000pro": "rtx_pro_6000"}
_SINGLE_NODE_ENGINES = ("vllm", "sglang")


@dataclass
class InferenceXResult:
    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


@dataclass
class _Entry:
    name: str
    data: dict
    path: str
    span: Span
    spans: dict[str, Span]


def _gpu_id(code: str) -> str | None:
    gpu = hardware.lookup(_GPU_ALIASES.get(code, code))
    return gpu.id if gpu else None


def _load_entries(path: str, problems: list[ReadProblem]) -> list[_Entry]:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as exc:
        problems.append(ReadProblem(path, None, f"cannot read master config: {exc}"))
        return []
    if not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        problems.append(ReadProblem(path, None, "master config is not a mapping"))
        return []
    out: list[_Entry] = []
    seen: set[str] = set()
    for key, value in node.value:
        span = Span(path, key.start_mark.line + 1, key.start_mark.column + 1,
                    key.end_mark.line + 1, key.end_mark.column + 1)
        if key.value in seen:
            problems.append(ReadProblem(path, span, f"duplicate master entry {key.value!r}; "
                                        "YAML keeps only the last one", "unresolved"))
        seen.add(key.value)
        spans: dict[str, Span] = {}
        if isinstance(value, yaml.MappingNode):
            for k, v in value.value:
                spans[k.value] = Span(path, v.start_mark.line + 1, v.start_mark.column + 1,
                                      v.end_mark.line + 1, v.end_mark.column + 1)
        entry = data.get(key.value)
        if isinstance(entry, dict):
            out.append(_Entry(key.value, entry, path, span, spans))
    return out


def _concurrencies(point: dict) -> list[int]:
    if point.get("conc-list"):
        return [int(c) for c in point["conc-list"]]
    start, end = point.get("conc-start"), point.get("conc-end")
    if start is None or end is None:
        return []
    out, c = [], int(start)
    while c < int(end):
        out.append(c)
        c *= 2
    out.append(int(end))
    return out


def _rows(entry: _Entry):
    """-> (scenario dir, row label without conc, env without CONC, concurrencies)."""
    d = entry.data
    for scenario, blocks in (d.get("scenarios") or {}).items():
        sdir = "agentic" if scenario == "agentic-coding" else "fixed_seq_len"
        for block in blocks or []:
            for point in block.get("search-space") or []:
                if "tp" not in point:
                    continue
                tp, ep = int(point["tp"]), int(point.get("ep", 1))
                pp, dcp, pcp = (int(point.get(k, 1)) for k in ("pp", "dcp-size", "pcp-size"))
                dp_attn = "true" if point.get("dp-attn") else "false"
                spec = point.get("spec-decoding", "none")
                env = {
                    "IMAGE": str(d.get("image", "")), "MODEL": str(d.get("model", "")),
                    "MODEL_PREFIX": str(d.get("model-prefix", "")),
                    "PRECISION": str(d.get("precision", "")),
                    "FRAMEWORK": str(d.get("framework", "")),
                    "TP": str(tp), "EP_SIZE": str(ep), "PP_SIZE": str(pp),
                    "DCP_SIZE": str(dcp), "PCP_SIZE": str(pcp), "DP_ATTENTION": dp_attn,
                    "SPEC_DECODING": spec, "DISAGG": "false", "RUN_EVAL": "false",
                    "EVAL_ONLY": "false", "IS_MULTINODE": "false",
                    "RUNNER_TYPE": str(d.get("runner", "")),
                    "GPU_COUNT": str(tp * pp * pcp), "RANDOM_RANGE_RATIO": "0.8",
                    "SCENARIO_TYPE": scenario, "SCENARIO_SUBDIR": f"{sdir}/",
                    # set by the workflow / launcher to values not derivable here
                    "RESULT_FILENAME": None, "RUNNER_NAME": None, "HF_TOKEN": None,
                    "HF_HUB_CACHE": None,
                }
                prefix = str(d.get("model-prefix", ""))
                if sdir == "agentic":
                    env.update(ISL="0", OSL="0", MAX_MODEL_LEN="0", IS_AGENTIC="1",
                               DURATION="3600",
                               KV_OFFLOADING=str(point.get("kv-offloading", "none")))
                    backend = point.get("kv-offload-backend") or {}
                    if backend.get("name"):
                        env["KV_OFFLOAD_BACKEND"] = str(backend["name"])
                    if env["KV_OFFLOADING"] != "none":
                        # the workflow derives it from runners.yaml hardware; its exact
                        # rounding is not visible here, so it is set but unknown
                        env["TOTAL_CPU_DRAM_GB"] = None
                    label = (f"agentic tp={tp} ep={ep} dp-attn={dp_attn} spec={spec} "
                             f"kv={env['KV_OFFLOADING']}")
                else:
                    isl, osl = int(block.get("isl", 0)), int(block.get("osl", 0))
                    env.update(ISL=str(isl), OSL=str(osl), MAX_MODEL_LEN=str(isl + osl + 256),
                               IS_AGENTIC="0")
                    seq = {(1024, 1024): "1k1k", (8192, 1024): "8k1k"}.get((isl, osl),
                                                                          f"{isl}_{osl}")
                    env["EXP_NAME"] = f"{prefix}_{seq}"
                    label = f"{seq} tp={tp} ep={ep} dp-attn={dp_attn} spec={spec}"
                yield sdir, label, env, _concurrencies(point)


def _candidates(rule: str, p: str, q: str, gpu: str, f: str, m: str) -> list[str]:
    plain = f"{p}_{q}_{gpu}{m}.sh"
    framework = f"{p}_{q}_{gpu}_{f}{m}.sh"
    if rule == "plain":
        return [plain]
    if rule == "trt":
        return [f"{p}_{q}_{gpu}{'_trt' if f == 'trt' else ''}{m}.sh"]
    if rule == "fw-then-trt":
        return [framework, f"{p}_{q}_{gpu}{'_trt' if f == 'trt' else ''}{m}.sh"]
    if rule == "fw-then-atom":
        return [framework, f"{p}_{q}_{gpu}{'_atom' if f == 'atom' else ''}{m}.sh"]
    return [framework, plain]


class _Binder:
    def __init__(self, master: str, repo_root: str | None, runners: dict | None) -> None:
        self.master_dir = os.path.dirname(os.path.abspath(master))
        self.repo_root = repo_root
        self.runners = runners

    def script_dirs(self, sdir: str) -> list[str]:
        dirs = []
        if self.repo_root:
            dirs.append(os.path.join(self.repo_root, "benchmarks", "single_node", sdir))
        dirs += [self.master_dir, os.path.join(self.master_dir, sdir)]
        return dirs

    def fleets(self, label: str) -> tuple[list[str], str | None]:
        """-> (fleets, problem message or None)."""
        if self.runners is None:
            return [label.removeprefix("cluster:")], None
        nodes = (self.runners.get("labels") or {}).get(label)
        if nodes:
            return sorted({str(n).split("_")[0] for n in nodes}), None
        guess = label.removeprefix("cluster:")
        known = [f for f in FLEET_RULES if f == guess or f.startswith(guess + "-")]
        msg = f"runner label {label!r} is not a label of runners.yaml"
        if known:
            msg += f"; bound as fleet {known[0]!r} by name"
        return known[:1], msg

    def resolve(self, fleet: str, sdir: str, d: dict) -> tuple[str | None, str | None, list[str]]:
        """-> (script path, gpu id, names tried)."""
        if fleet in FLEET_RULES:
            rule_entry = FLEET_RULES[fleet]
            if rule_entry is None:
                return None, None, []
            code, rule = rule_entry
        else:
            code, rule = fleet.split("-")[0], "fw-then-bare"
        m = "_mtp" if d.get("_spec") == "mtp" else ""
        names = _candidates(rule, str(d.get("model-prefix", "")), str(d.get("precision", "")),
                            code, str(d.get("framework", "")), m)
        tried = []
        for name in names:
            for folder in self.script_dirs(sdir):
                path = os.path.join(folder, name)
                tried.append(path)
                if os.path.isfile(path):
                    return path, _gpu_id(code), tried
        return None, _gpu_id(code), tried


def _find_layout(root_or_file: str) -> tuple[list[str], str | None, str | None]:
    """-> (master files, repo root, runners.yaml path)."""
    if os.path.isdir(root_or_file):
        root = os.path.abspath(root_or_file)
        masters = [os.path.join(root, "configs", n) for n in ("nvidia-master.yaml",
                                                               "amd-master.yaml")]
        masters = [m for m in masters if os.path.isfile(m)]
        runners = os.path.join(root, "configs", "runners.yaml")
        return masters, root, runners if os.path.isfile(runners) else None
    master = os.path.abspath(root_or_file)
    mdir = os.path.dirname(master)
    parent = os.path.dirname(mdir)
    root = parent if os.path.isdir(os.path.join(parent, "benchmarks", "single_node")) else None
    for cand in ([os.path.join(root, "configs", "runners.yaml")] if root else []) + [
            os.path.join(mdir, "runners.yaml")]:
        if os.path.isfile(cand):
            return [master], root, cand
    return [master], root, None


def read_inferencex(root_or_file: str, *, only: set[str] | None = None,
                    time_limit: float = 10.0, jobs: int = 0) -> InferenceXResult:
    """Bind every single-node master entry to its launcher script and read its launches.

    ``only`` restricts the run to the named entries (tests, CLI filters); ``jobs`` caps the
    worker processes that read launcher scripts (0: one per free core, 1: none).
    """
    t0 = time.monotonic()
    result = InferenceXResult()
    masters, repo_root, runners_path = _find_layout(root_or_file)
    if not masters:
        result.problems.append(ReadProblem(root_or_file, None, "no InferenceX master config "
                                           "found (configs/*-master.yaml)", "unresolved"))
        return result
    runners = None
    if runners_path:
        try:
            with open(runners_path, encoding="utf-8") as fh:
                runners = yaml.safe_load(fh) or {}
        except (OSError, yaml.YAMLError) as exc:
            result.problems.append(ReadProblem(runners_path, None, f"cannot read: {exc}"))
    stats = {"entries": 0, "multi_node_entries": 0, "single_node_entries": 0,
             "entries_bound": 0, "rows": 0, "script_reads": 0, "launches": 0,
             "launches_fully_resolved": 0, "launches_symbolic": 0,
             "launch_sites_per_engine": {}, "single_node_vllm_sglang_scripts": 0,
             "single_node_vllm_sglang_scripts_with_spec": 0}
    work = [(_Binder(master, repo_root, runners), entry)
            for master in masters for entry in _load_entries(master, result.problems)
            if only is None or entry.name in only]
    reader = read_script
    if jobs != 1 and may_fork():
        # the reads of one script depend only on that script's earlier reads: plan them
        # with a dry walk, run each script's reads in a worker, then walk for real
        planned: dict[str, list[tuple[dict, list[int]]]] = {}
        _walk(work, InferenceXResult(), dict(stats), repo_root, time_limit,
              _Planner(planned))
        done = _parallel_reads(planned, repo_root, time_limit, jobs)
        if done is not None:
            reader = _Recorded(done)
    sites, vs_scripts = _walk(work, result, stats, repo_root, time_limit, reader)
    stats["launch_sites_per_engine"] = {k: len(v) for k, v in sorted(sites.items())}
    stats["single_node_vllm_sglang_scripts"] = len(vs_scripts)
    stats["single_node_vllm_sglang_scripts_with_spec"] = sum(vs_scripts.values())
    n = len(vs_scripts)
    stats["single_node_vllm_sglang_spec_rate"] = round(100.0 * sum(vs_scripts.values()) / n,
                                                       1) if n else None
    stats["seconds"] = round(time.monotonic() - t0, 2)
    result.stats = stats
    return result


def _walk(work: list[tuple[_Binder, _Entry]], result: InferenceXResult, stats: dict,
          repo_root: str | None, time_limit: float,
          reader: Callable[..., ScriptResult]) -> tuple[dict[str, set], dict[str, bool]]:
    """Bind every entry (in order); -> (launch sites per engine, vLLM/SGLang scripts)."""
    cache: dict[tuple, tuple] = {}
    sites: dict[str, set] = {}
    vs_scripts: dict[str, bool] = {}
    for binder, entry in work:
        stats["entries"] += 1
        if entry.data.get("multinode"):
            stats["multi_node_entries"] += 1
            continue
        stats["single_node_entries"] += 1
        try:
            bound = _bind_entry(entry, binder, result, stats, cache, sites, vs_scripts,
                                repo_root, time_limit, reader)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # wrong shapes
            result.problems.append(ReadProblem(entry.path, entry.span, f"{entry.name}: a "
                                               f"value of the wrong type ({exc}); entry "
                                               "skipped"))
            bound = False
        stats["entries_bound"] += int(bound)
    return sites, vs_scripts


def _bind_entry(entry: _Entry, binder: _Binder, result: InferenceXResult, stats: dict,
                cache: dict, sites: dict, vs_scripts: dict, repo_root: str | None,
                time_limit: float, reader: Callable[..., ScriptResult] = read_script) -> bool:
    d = entry.data
    label = str(d.get("runner", ""))
    fleets, runner_problem = binder.fleets(label)
    runner_span = entry.spans.get("runner", entry.span)
    if runner_problem:
        result.problems.append(ReadProblem(entry.path, runner_span,
                                           f"{entry.name}: {runner_problem}", "unresolved"))
    if not fleets:
        return False
    image = str(d.get("image", ""))
    ref = resolve_image(image) if image else None
    bound = False
    reported: set[str] = set()
    rows = list(_rows(entry))
    for sdir, row_label, env, concs in rows:
        stats["rows"] += max(1, len(concs))
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
            why = (f"tried {', '.join(names)}" if names else
                   f"fleet(s) {', '.join(fleets)} have no single-node launcher")
            message = (f"{entry.name}: no launcher script for {sdir} spec={spec_kind} on "
                       f"runner {label!r} ({why})")
            if message not in reported:  # one problem per entry and script name, not per row
                reported.add(message)
                result.problems.append(ReadProblem(entry.path, entry.span, message,
                                                   "unresolved"))
            continue
        for script, gpu in targets.items():
            merged = _read_rows(script, env, concs, repo_root, cache, stats, time_limit,
                                result, reader)
            yielded = False
            for spec, conc_list in merged:
                yielded = True
                spec.image = image or None
                spec.image_span = entry.spans.get("image")
                spec.gpu = gpu
                conc_text = ",".join(str(c) for c in conc_list)
                spec.rendering = f"{entry.name} [{row_label} conc={conc_text}]" + (
                    f" {{{spec.rendering}}}" if spec.rendering else "")
                spec.origin = "inferencex"
                spec.context.update({
                    "entry": entry.name, "framework": str(d.get("framework", "")),
                    "runner": label, "master": entry.path, "script": script,
                })
                if ref is not None:
                    spec.context["image_engine"] = ref.engine
                    spec.context["image_release"] = ref.release or ""
                result.launches.append(spec)
                stats["launches"] += 1
                symbolic = any(t.symbolic for t in spec.argv)
                stats["launches_symbolic" if symbolic else "launches_fully_resolved"] += 1
                sites.setdefault(spec.engine, set()).add(
                    (spec.anchor.path, spec.anchor.line, spec.anchor.column))
            if str(d.get("framework", "")) in _SINGLE_NODE_ENGINES:
                vs_scripts[script] = vs_scripts.get(script, False) or yielded
            bound = bound or yielded
            if not yielded and script not in reported:
                reported.add(script)
                result.problems.append(ReadProblem(
                    script, None, f"{entry.name}: launcher {os.path.basename(script)} yields "
                    "no engine launch the reader can see", "unresolved"))
    return bound


def _read_rows(script: str, env: dict[str, str | None], concs: list[int], repo_root: str | None,
               cache: dict, stats: dict, time_limit: float, result: InferenceXResult,
               reader: Callable[..., ScriptResult] = read_script) -> list[
                   tuple[LaunchSpec, list[int]]]:
    """Read the script once per concurrency (cached) and merge identical launches."""
    if isinstance(reader, _Planner):
        reader.rows(script, env, concs)
        return []
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
            stats["script_reads"] += 1
            res = reader(script, env=row_env, root=repo_root or os.path.dirname(script),
                         time_limit=time_limit)
            cache[key] = (res.launches, res.problems)
            if not any(p.kind == "budget" for p in res.problems):
                _remember_inputs(cache, script, row_env, res.inputs, cache[key])
            if "CONC" not in res.inputs:
                conc_free = cache[key]
            for p in res.problems:
                if p.kind != "unresolved" or "sourced file" not in p.message:
                    if not any(q.message == p.message and q.span == p.span
                               for q in result.problems):
                        result.problems.append(p)
        launches, _ = cache[key]
        for spec in launches:
            k = _spec_key(spec)
            if k in by_key:
                by_key[k][1].append(conc)
            else:
                by_key[k] = (_clone(spec), [conc])
    return list(by_key.values())


def _remember_inputs(cache: dict, script: str, env: dict[str, str | None], inputs: set[str],
                     found: tuple) -> None:
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
    return (spec.engine, spec.entrypoint, spec.anchor,
            tuple((t.text, t.symbolic, t.span) for t in spec.argv),
            tuple((e.name, e.value, e.symbolic) for e in spec.env),
            tuple((i.requirement, i.span) for i in spec.installs), spec.rendering,
            tuple(sorted(spec.context.items())))


def _clone(spec: LaunchSpec) -> LaunchSpec:
    return LaunchSpec(spec.engine, spec.entrypoint, list(spec.argv), spec.path, spec.anchor,
                      list(spec.env), spec.image, spec.image_span, spec.release,
                      spec.release_span, spec.floor, spec.floor_span, spec.gpu,
                      list(spec.installs), spec.rendering, spec.origin, dict(spec.context))


class _Planner:
    """A reader that reads nothing: records each script's ``_read_rows`` calls, in order."""

    def __init__(self, planned: dict[str, list[tuple[dict, list[int]]]]) -> None:
        self.planned = planned

    def rows(self, script: str, env: dict, concs: list[int]) -> None:
        self.planned.setdefault(script, []).append((env, concs))


class _Recorded:
    """A reader answering from reads made ahead (in workers); reads what is missing."""

    def __init__(self, done: dict[tuple, ScriptResult]) -> None:
        self.done = done

    def __call__(self, script: str, *, env: dict, root: str, time_limit: float) -> ScriptResult:
        found = self.done.get(_read_key(script, env))
        if found is not None:
            return found
        return read_script(script, env=env, root=root, time_limit=time_limit)


def _read_key(script: str, env: dict) -> tuple:
    return (script, tuple(sorted(env.items(), key=lambda kv: kv[0])))


_MIN_PARALLEL_READS = 24  # below this, forking costs more than it saves


def _parallel_reads(planned: dict[str, list[tuple[dict, list[int]]]], repo_root: str | None,
                    time_limit: float, max_workers: int = 0
                    ) -> dict[tuple, ScriptResult] | None:
    """Each script's planned reads, made in worker processes (None: read serially)."""
    jobs = [(script, calls, repo_root, time_limit) for script, calls in planned.items()]
    weights = [sum(max(1, len(concs)) for _, concs in calls) for _, calls, _, _ in jobs]
    if sum(weights) < _MIN_PARALLEL_READS:
        return None
    found = map_in_workers(_script_reads, jobs, weights, max_workers)
    if found is None:
        return None
    return {k: v for part in found for k, v in part.items()}


def _script_reads(job: tuple) -> dict[tuple, ScriptResult]:
    """Replay one script's ``_read_rows`` calls with a fresh cache (its keys are per script,
    so the reads made are the ones the serial walk makes); -> read key -> result."""
    script, calls, repo_root, time_limit = job
    made: dict[tuple, ScriptResult] = {}

    def reader(path: str, *, env: dict, root: str, time_limit: float) -> ScriptResult:
        res = read_script(path, env=env, root=root, time_limit=time_limit)
        made[_read_key(path, env)] = res
        return res

    cache: dict[tuple, tuple] = {}
    for env, concs in calls:
        _read_rows(script, env, concs, repo_root, cache, {"script_reads": 0}, time_limit,
                   InferenceXResult(), reader)
    return made
