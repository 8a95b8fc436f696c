"""InferenceX multi-node entries without a srt-slurm recipe -> their wrapper launchers.

AMD ``*-disagg``, llm-d and TileRT entries name no ``CONFIG_FILE``; their launcher is
``benchmarks/multi_node/[agentic/]<model-prefix>_<precision>_<gpu>_<framework>.sh``
(benchmark-format §7). The wrapper is read by the shell reader with the entry's values like
a single-node launcher, then every script its Slurm job runs (:mod:`.job_chain`: the
wrapper's ``submit.sh``, ``job.slurm``, the server script in the container), each with the
environment the one before hands on. A launch is bound to the entry's image (or an image
an ``…IMAGE`` setting names for that engine, TileRT's prefill); a launch no image of the
entry runs is a dispatch branch the reader could not decide and is not bound. When nothing
is found, the entry gets a problem naming the submission line and the scripts followed.
"""

from __future__ import annotations

import glob
import os
import re

from servelint.engines.images import resolve_image
from servelint.model import LaunchSpec, Span
from servelint.sources.common.problems import ReadProblem
from servelint.sources.inferencex.job_chain import chain
from servelint.sources.shell.script import read_script
from servelint.util import hardware

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


def _settings(data: dict) -> dict[str, str | None]:
    """``KEY=VALUE`` of every ``additional-settings`` list of the entry's search spaces; a key
    whose rows disagree is set to an unknown value."""
    out: dict[str, str | None] = {}

    def take(where: object) -> None:
        items = where.get("additional-settings") if isinstance(where, dict) else None
        for item in items if isinstance(items, list) else []:
            key, sep, value = str(item).partition("=")
            if sep and key.isidentifier():
                out[key] = value if out.get(key, value) == value else None

    for blocks in (data.get("scenarios") or {}).values():
        for block in blocks if isinstance(blocks, list) else []:
            space = block.get("search-space") if isinstance(block, dict) else None
            for point in space if isinstance(space, list) else []:
                for where in (point, *(point.get(r) for r in ("prefill", "decode"))):
                    take(where)
    return out


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
    for key, value in _settings(data).items():
        env.setdefault(key, value)
    return env


def _image_for(engine: str, env: dict[str, str | None], default: str) -> str | None:
    """The image a launch of ``engine`` runs in: the entry's when it is that engine's, else
    one the entry names in an ``…IMAGE`` setting for that engine (TileRT's
    ``PREFILL_IMAGE``), else none known."""
    named = [default] + [v for k, v in sorted(env.items()) if k.endswith("IMAGE") and v]
    for image in named:
        if image and resolve_image(image).engine == engine:
            return image
    return None


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
    launches, problems, other, followed = _read_chain(name, data, script, repo_root)
    if launches:
        return launches, problems, "launches"
    rel = os.path.relpath(script, repo_root)
    real_root = os.path.abspath(repo_root)
    scripts = ", ".join(os.path.relpath(p, real_root) for p in followed) or "none"
    skipped = (
        f"; launches of {', '.join(sorted(set(other)))} found there run in no image the "
        "entry names (a dispatch the reader could not decide), so they are not bound"
        if other
        else ""
    )
    return (
        [],
        [
            ReadProblem(
                span.path,
                span,
                f"{name}: launcher {rel} submits a Slurm job ({_submission(script)}); "
                f"the scripts the job runs (followed: {scripts}) yield no engine launch "
                f"the shell reader can resolve{skipped}, so the job's engine launches are "
                "not checked",
                "unresolved",
            )
        ],
        "no_launch",
    )


def _job_read(env_complete: bool = False) -> dict:
    """Bounds for a job's scripts: fewer concurrent flows (their many ``check_env``-style
    guards fork) and a step budget, not the wall clock, as the bound that stops them, so
    what is read does not depend on the machine's load."""
    return {"env_complete": env_complete, "max_states": 8, "time_limit": 60.0}


def _read_chain(
    name: str, data: dict, wrapper: str, repo_root: str
) -> tuple[list[LaunchSpec], list[ReadProblem], list[str], list[str]]:
    """The wrapper, then every script its job runs (:mod:`.job_chain`), each read with the
    environment the one before it exports; launches bound to the entry. -> (launches,
    problems, engines of launches no image of the entry runs, the scripts followed)."""
    repo_root = os.path.abspath(repo_root)  # the chain's scripts are absolute paths
    image = str(data.get("image", ""))
    gpu = hardware.lookup(_gpu_code(str(data.get("runner", ""))))
    envs = {os.path.abspath(wrapper): _env(data)}
    # the workflow sets more than the entry shows (MODEL_PATH, the matrix row's sizes, the
    # runner's Slurm account): what the entry does not give stays unknown, here and below
    got = read_script(wrapper, env=envs[os.path.abspath(wrapper)], root=repo_root, **_job_read())
    envs[os.path.abspath(wrapper)] = {**envs[os.path.abspath(wrapper)], **got.exports}
    found = [(wrapper, s) for s in got.launches]
    problems = list(got.problems)
    steps = chain(wrapper, repo_root)
    for step in steps:
        before = envs[step.via]
        if step.passed:  # a container's environment is what it is given (``-e``)
            env = {k: v if v is not None else before.get(k) for k, v in step.passed}
        else:  # ``sbatch``/``bash``: the environment goes on, with more the chain cannot see
            env = dict(before)
        part = read_script(step.script, env=env, root=repo_root, **_job_read(bool(step.passed)))
        envs[step.script] = {**env, **part.exports}
        found += [(step.script, s) for s in part.launches]
        problems += part.problems
    out: list[LaunchSpec] = []
    dropped: list[LaunchSpec] = []
    seen: set[tuple] = set()
    for script, spec in found:
        key = (spec.anchor.path, spec.anchor.line, spec.anchor.column) if spec.anchor else ()
        key += tuple((t.text, t.symbolic) for t in spec.argv)
        if key in seen:  # a script the wrapper itself ran (``exec bash …``), read again
            continue
        seen.add(key)
        spec.image = spec.image or _image_for(spec.engine, envs[os.path.abspath(script)], image)
        if spec.image is None:
            # no image of the entry runs this engine: a branch of a dispatch on a value
            # the reader could not follow (server.sh picks server_<engine>.sh by ENGINE)
            dropped.append(spec)
            continue
        if spec.gpu is None and gpu is not None:
            spec.gpu = gpu.id
        rel = os.path.relpath(script, repo_root)
        spec.rendering = f"{name} {rel} · {spec.rendering}" if spec.rendering else f"{name} {rel}"
        spec.origin = "inferencex"
        spec.context.update({"entry": name, "script": script})
        out.append(spec)
    return out, problems, [s.engine for s in dropped], [step.script for step in steps]
