"""Record the worker commands srtctl itself builds for srt-slurm recipes (conformance data).

Run with srt-slurm's ``src`` on PYTHONPATH in a throwaway venv (its dependencies, never
servelint's); nothing here is imported by servelint. For each recipe (``PATH[:selector]``)
srtctl's own loader, allocator and ``build_worker_command`` run offline: node names are
``node0..``, every node resolves to 10.0.0.1, the model directory is ``/models/MODELDIR``.
A recipe with a ``sweep:`` block is expanded by srtctl's ``generate_sweep_configs`` (one
record per combination, with its parameters). The leader process of each role's first
worker is recorded, with its role + global env::

    PYTHONPATH=<srt-slurm>/src python tools/srt_slurm_oracle/run.py OUT.json RECIPE[:SEL]...
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import yaml


def _runtime(config, log_dir: Path):
    return SimpleNamespace(
        model_path=Path("/models/MODELDIR"),
        is_hf_model=str(config.model.path).startswith("hf:"),
        request_plane=config.dynamo.request_plane,
        frontend_port=8000,
        network_interface="eth0",
        log_dir=log_dir,
        worker_model_arg="/model",
        gpu_type=config.resources.gpu_type,
        staged_model_path=None,
    )


def _record(raw: dict, log_dir: Path) -> dict:
    import srtctl.core.slurm as slurm
    from srtctl.core.config import expand_observability, resolve_config_with_defaults
    from srtctl.core.schema import SrtConfig
    from srtctl.core.topology import NodePortAllocator

    slurm.get_hostname_ip = lambda node, iface=None: "10.0.0.1"
    # the benchmark block never reaches a worker command; recipes written for other srt-slurm
    # branches carry benchmark fields this checkout's schema refuses
    raw = {k: v for k, v in raw.items() if k != "benchmark"}
    resolved = resolve_config_with_defaults(raw, None)
    expand_observability(resolved)
    config = SrtConfig.Schema().load(resolved)
    backend, res = config.backend, config.resources
    nodes = [f"node{i}" for i in range(res.total_nodes + 4)]
    eps = backend.allocate_endpoints(
        res.num_prefill,
        res.num_decode,
        res.num_agg,
        res.gpus_per_prefill,
        res.gpus_per_decode,
        res.gpus_per_agg,
        res.gpus_per_node,
        nodes,
    )
    procs = backend.endpoints_to_processes(
        eps, port_allocator=NodePortAllocator(), frontend_type=config.frontend.type
    )
    runtime = _runtime(config, log_dir)
    out = {}
    for mode in ("prefill", "decode", "agg"):
        mine = [p for p in procs if p.endpoint_mode == mode and p.endpoint_index == 0]
        if not mine:
            continue
        cmd = backend.build_worker_command(
            process=mine[0],
            endpoint_processes=mine,
            runtime=runtime,
            frontend_type=config.frontend.type,
            dump_config_path=log_dir / "node0_config.json",
        )
        env = dict(backend.get_environment_for_mode(mode))
        env.pop("TRTLLM_EPLB_SHM_NAME", None)  # a fresh uuid per call
        env.update(config.environment)
        out[mode] = {"cmd": [str(c) for c in cmd], "env": env}
    return {"name": config.name, "modes": out}


def _records(cfg: dict, log_dir: Path) -> list[dict]:
    """One record per job srtctl submits: a ``sweep`` recipe (or override variant) is
    expanded by srtctl's own ``generate_sweep_configs`` first, as ``submit_sweep`` does."""
    if "sweep" not in cfg:
        return [_record(cfg, log_dir)]
    from srtctl.core.sweep import generate_sweep_configs

    return [
        {"sweep": {k: repr(v) for k, v in params.items()}, **_record(job, log_dir)}
        for job, params in generate_sweep_configs(cfg)
    ]


def main(argv: list[str]) -> int:
    from srtctl.core.config import generate_override_configs

    target, recipes = Path(argv[0]), argv[1:]
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for item in recipes:
            path, _, selector = item.partition(":")
            raw = yaml.safe_load(Path(path).read_text())
            try:
                chosen = (
                    generate_override_configs(raw, selector or None)
                    if "base" in raw
                    else [("", raw)]
                )
            except ValueError as exc:  # srtctl refuses the selector
                found[item] = [{"selector_error": str(exc)}]
                continue
            rows = []
            for suffix, cfg in chosen:
                try:
                    rows.extend({"variant": suffix, **row} for row in _records(cfg, Path(tmp)))
                except Exception as exc:  # record srtctl's own refusal
                    rows.append({"variant": suffix, "error": f"{type(exc).__name__}: {exc}"})
            found[item] = rows
    target.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
