"""InferenceX layout: master entries, their rows, and the launcher script each row runs.

Follows the repo's own pipeline (docs: benchmark-format.md): each single-node master
entry is expanded like ``generate_sweep_configs.py`` (concurrency ranges, defaults,
``max-model-len = isl + osl + 256``), its runner label is mapped to fleets through
``runners.yaml``, each fleet's launcher naming rule picks the script, and the script is
read by the static bash reader with the env the workflow passes (section 3; see
:mod:`.plan` and :mod:`.script_reads`). Rows whose launches are identical are merged into
one rendering.

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
from dataclasses import dataclass

import yaml

from servelint.model import Span
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yaml_bounded import compose_bounded, read_yaml_bytes
from servelint.sources.common.yamlpos import node_span
from servelint.util import hardware

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


@dataclass
class _Entry:
    """One entry of a master config, with the spans of its keys."""

    name: str
    data: dict
    path: str
    span: Span
    spans: dict[str, Span]


def _gpu_id(code: str) -> str | None:
    gpu = hardware.lookup(_GPU_ALIASES.get(code, code))
    return gpu.id if gpu else None


def _load_entries(path: str, problems: list[ReadProblem]) -> list[_Entry]:
    note(path)
    try:
        node = compose_bounded(read_yaml_bytes(path))
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as exc:
        problems.append(ReadProblem(path, None, f"cannot read master config: {exc}"))
        return []
    if not isinstance(node, yaml.MappingNode):
        problems.append(ReadProblem(path, None, "master config is not a mapping"))
        return []
    # spans first: constructing the data flattens merge keys in the node in place
    spanned = [(key, node_span(path, key), _value_spans(path, value)) for key, value in node.value]
    try:  # the data from the same node, not a second parse of the text
        data = yaml.constructor.SafeConstructor().construct_document(node)
    except (yaml.YAMLError, RecursionError) as exc:
        problems.append(ReadProblem(path, None, f"cannot read master config: {exc}"))
        return []
    if not isinstance(data, dict):
        problems.append(ReadProblem(path, None, "master config is not a mapping"))
        return []
    out: list[_Entry] = []
    seen: set[str] = set()
    for key, span, spans in spanned:
        if key.value in seen:
            problems.append(ReadProblem(path, span, f"duplicate master entry {key.value!r}; "
                                        "YAML keeps only the last one", "unresolved"))
        seen.add(key.value)
        entry = data.get(key.value)
        if isinstance(entry, dict):
            out.append(_Entry(key.value, entry, path, span, spans))
    return out


def _value_spans(path: str, value: yaml.Node) -> dict[str, Span]:
    if not isinstance(value, yaml.MappingNode):
        return {}
    return {k.value: node_span(path, v) for k, v in value.value}


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
                note(path)  # a launcher added later changes the binding
                if os.path.isfile(path):
                    return path, _gpu_id(code), tried
        return None, _gpu_id(code), tried


def _find_layout(root_or_file: str) -> tuple[list[str], str | None, str | None]:
    """-> (master files, repo root, runners.yaml path)."""
    if os.path.isdir(root_or_file):
        root = os.path.abspath(root_or_file)
        masters = [os.path.join(root, "configs", n) for n in ("nvidia-master.yaml",
                                                               "amd-master.yaml")]
        runners = os.path.join(root, "configs", "runners.yaml")
        for cand in [*masters, runners]:  # one added later changes what is read
            note(cand)
        masters = [m for m in masters if os.path.isfile(m)]
        return masters, root, runners if os.path.isfile(runners) else None
    master = os.path.abspath(root_or_file)
    mdir = os.path.dirname(master)
    parent = os.path.dirname(mdir)
    root = parent if os.path.isdir(os.path.join(parent, "benchmarks", "single_node")) else None
    for cand in ([os.path.join(root, "configs", "runners.yaml")] if root else []) + [
            os.path.join(mdir, "runners.yaml")]:
        note(cand)
        if os.path.isfile(cand):
            return [master], root, cand
    return [master], root, None


