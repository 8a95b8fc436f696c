"""InferenceX multi-node entries without a srt-slurm recipe -> their wrapper launchers.

AMD ``*-disagg``, llm-d and TileRT entries name no ``CONFIG_FILE``; their launcher is
``benchmarks/multi_node/[agentic/]<model-prefix>_<precision>_<gpu>_<framework>.sh``
(benchmark-format §7). The wrapper is read by the shell reader with the entry's values like
a single-node launcher; when it yields no engine launch (the wrappers submit a Slurm job,
which the shell reader does not follow), the entry gets a problem naming the submission
line, so the gap is visible.
"""

from __future__ import annotations

import glob
import os
import re

from servelint.model import LaunchSpec, Span
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell.script import read_script

_SUBMIT = re.compile(r"\b(sbatch|srun|salloc|submit\.sh)\b")


def _gpu_code(runner: str) -> str:
    return runner.removeprefix("cluster:").split("-")[0]


def find_wrapper(repo_root: str, data: dict) -> str | None:
    prefix, prec = str(data.get("model-prefix", "")), str(data.get("precision", ""))
    fw = str(data.get("framework", ""))
    fw = {"llmd-vllm": "llmd-vllm-disagg"}.get(fw, fw)
    gpu = _gpu_code(str(data.get("runner", "")))
    agentic = "agentic-coding" in (data.get("scenarios") or {})
    base = os.path.join(repo_root, "benchmarks", "multi_node")
    dirs = [os.path.join(base, "agentic"), base] if agentic else [base]
    for folder in dirs:
        for name in (fw, f"{fw}-disagg"):  # tilert's launcher is ..._tilert-disagg.sh
            exact = os.path.join(folder, f"{prefix}_{prec}_{gpu}_{name}.sh")
            if os.path.isfile(exact):
                return exact
            found = sorted(
                glob.glob(
                    os.path.join(
                        glob.escape(folder),
                        f"{glob.escape(prefix)}_{glob.escape(prec)}_*_{glob.escape(name)}.sh",
                    )
                )
            )
            if found:
                return found[0]
    return None


def _env(data: dict) -> dict[str, str | None]:
    env: dict[str, str | None] = {
        "IMAGE": str(data.get("image", "")),
        "MODEL": str(data.get("model", "")),
        "MODEL_PREFIX": str(data.get("model-prefix", "")),
        "PRECISION": str(data.get("precision", "")),
        "FRAMEWORK": str(data.get("framework", "")),
        "IS_MULTINODE": "true",
        "DISAGG": "true",
        "GITHUB_WORKSPACE": None,
        "SLURM_JOB_ID": None,
    }
    return env


def _submission(script: str) -> str:
    try:
        with open(script, encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if not line.lstrip().startswith("#") and _SUBMIT.search(line):
                    return f"line {n}: {line.strip()[:80]}"
    except OSError:
        pass
    return "no submission line found"


def bind_wrapper(
    name: str, data: dict, span: Span, repo_root: str
) -> tuple[list[LaunchSpec], list[ReadProblem], str]:
    """-> (launches, problems, outcome) for one multi-node entry without a recipe."""
    script = find_wrapper(repo_root, data)
    if script is None:
        return (
            [],
            [
                ReadProblem(
                    span.path,
                    span,
                    f"{name}: no multi-node launcher "
                    f"{data.get('model-prefix')}_{data.get('precision')}_*_"
                    f"{data.get('framework')}.sh under benchmarks/multi_node",
                    "unresolved",
                )
            ],
            "no_launcher",
        )
    got = read_script(script, env=_env(data), root=repo_root)
    for spec in got.launches:
        spec.image = spec.image or str(data.get("image", "")) or None
        spec.rendering = f"{name} {{{spec.rendering}}}" if spec.rendering else name
        spec.origin = "inferencex"
        spec.context.update({"entry": name, "script": script})
    if got.launches:
        return list(got.launches), list(got.problems), "launches"
    rel = os.path.relpath(script, repo_root)
    return (
        [],
        [
            ReadProblem(
                span.path,
                span,
                f"{name}: launcher {rel} yields no engine launch "
                f"the shell reader can see: it submits a Slurm job "
                f"({_submission(script)}) and the reader does not follow job "
                "submission, so the job's engine launches are not checked",
                "unresolved",
            )
        ],
        "no_launch",
    )
