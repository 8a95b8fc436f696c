"""One worker command per role, built the way srtctl builds it.

Follows srt-slurm's ``src/srtctl/backends/{vllm,sglang,trtllm}.py`` ``build_worker_command``
for the *leader process of the first worker of each role* (node rank 0, data-parallel rank
0). Values srtctl only knows at run time (node IPs, allocated ports, the log directory, the
resolved model directory) are symbolic tokens; every token has the span of the recipe key
or value it comes from. Config maps become flags as ``_config_to_cli_args`` does: keys
sorted, ``_`` -> ``-``, ``true`` -> bare flag, ``false``/``null`` -> nothing, a list -> the
flag then each item, anything else -> ``str(value)`` (Python's spelling: ``0.9``, ``True``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from servelint.model import Span, Token
from servelint.sources.srt_slurm.tree import Node

# srtctl's connector shorthands (vllm.py _CONNECTOR_MAP), expanded to --kv-transfer-config
_CONNECTOR_MAP: dict[str, dict[str, str]] = {
    "nixl": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
    "lmcache": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"},
    "kvbm": {
        "kv_connector": "DynamoConnector",
        "kv_connector_module_path": "kvbm.vllm_integration.connector",
        "kv_role": "kv_both",
    },
}
MODE_KEYS = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}
# how a value srtctl only knows at run time is spelled in a rendered command: ``<name>``,
# alone (``<leader-ip>``) or inside a value (``tcp://*:<kv-events-port>`` in a JSON config)
RUNTIME_VALUE = re.compile(r"<[a-z][a-z0-9:-]*>")


def is_runtime_value(text: str) -> bool:
    """True for a token holding a value srtctl fills in at run time."""
    return RUNTIME_VALUE.search(text) is not None


@dataclass(slots=True)
class Topology:
    """What srtctl's allocation gives the leader process of a role's first worker."""

    gpus: int  # GPUs of one worker of the role
    gpus_per_node: int
    gpu_type: str | None

    @property
    def nodes(self) -> int:
        return max(1, -(-self.gpus // max(1, self.gpus_per_node)))

    @property
    def local_gpus(self) -> int:
        return self.gpus_per_node if self.nodes > 1 else self.gpus


@dataclass(slots=True)
class Command:
    """One worker command a srt-slurm recipe renders."""

    prefix: list[Token]  # numactl / trtllm-llmapi-launch words before the entrypoint
    entrypoint: list[Token]  # "python3 -m dynamo.vllm" / "vllm serve" ...
    argv: list[Token]
    files: dict[str, Node] = field(default_factory=dict)  # path -> config written first
    recipe_idx: set[int] = field(default_factory=set)  # argv tokens the recipe spells

    def added_spans(self) -> set[tuple[int, int]]:
        """(line, column) of tokens srtctl adds whose span no recipe token shares."""
        own = {
            (t.span.line, t.span.column)
            for i, t in enumerate(self.argv)
            if i in self.recipe_idx and t.span
        }
        return {
            (t.span.line, t.span.column)
            for i, t in enumerate(self.argv)
            if i not in self.recipe_idx and t.span
        } - own


class _Out:
    """Tokens under construction, each with a span."""

    def __init__(self, anchor: Span) -> None:
        self.anchor = anchor
        self.tokens: list[Token] = []
        self.recipe_idx: set[int] = set()

    def add(self, text: str, span: Span | None = None, symbolic: bool = False) -> None:
        self.tokens.append(Token(text, span or self.anchor, symbolic))

    def recipe(self, text: str, span: Span) -> None:
        """A token spelled by the recipe itself (a config key or value)."""
        self.recipe_idx.add(len(self.tokens))
        self.tokens.append(Token(text, span, False))

    def sym(self, name: str, span: Span | None = None) -> None:
        self.add(f"<{name}>", span, True)


def py_str(value: object) -> str:
    """``str(value)`` as srtctl's Python applies it to a YAML value."""
    if isinstance(value, dict | list):
        return str(value)
    return str(value)


def config_flags(config: dict[str, tuple[Span, Node]], out: _Out) -> None:
    """srtctl's ``_config_to_cli_args`` over a role config (key -> (key span, value node))."""
    for key in sorted(config):
        key_span, node = config[key]
        flag = "--" + key.replace("_", "-")
        value = node.value
        if isinstance(value, bool):
            if value:
                out.recipe(flag, key_span)
        elif isinstance(value, list):
            out.recipe(flag, key_span)
            for item in value:
                out.recipe(py_str(item.plain()), item.span)
        elif value is not None:
            out.recipe(flag, key_span)
            out.recipe(py_str(node.plain()), node.span)


def role_config(backend: Node | None, section: str, mode: str) -> tuple[dict, Span | None]:
    """-> ({key: (key span, node)}, span of the role block) for one mode."""
    block = backend.get(section) if backend else None
    role = block.get(MODE_KEYS[mode]) if block is not None else None
    if role is None or not role.is_map:
        return {}, role.span if role is not None else None
    return {k: (e.key_span, e.node) for k, e in role.entries()}, role.span


def _pop(config: dict, *keys: str) -> tuple[Span, Node] | None:
    found = None
    for key in keys:
        got = config.pop(key, None)
        if got is not None and found is None:
            found = got
    return found


def _value(config: dict, *keys: str) -> object:
    for key in keys:
        if key in config and config[key][1].value:
            return config[key][1].value
    return None


def served_name(backend: Node | None, section: str) -> tuple[str, Span] | None:
    """The first ``served-model-name`` of prefill, aggregated, decode (srtctl's order)."""
    block = backend.get(section) if backend else None
    for role in ("prefill", "aggregated", "decode"):
        node = block.get(role) if block is not None else None
        if node is None or not node.is_map:
            continue
        for key in ("served-model-name", "served_model_name"):
            got = node.get(key)
            if got is not None and got.value:
                return py_str(got.value), got.span
    return None


@dataclass(slots=True)
class Context:
    """Recipe facts the command builders read."""

    anchor: Span
    mode: str
    frontend: str  # dynamo | sglang | vllm | trtllm_serve
    backend: Node | None
    model_arg: tuple[str, Span, bool]  # text, span, symbolic
    model_name: tuple[str, Span, bool]  # runtime.model_path.name
    request_plane: tuple[str, Span]
    topo: Topology
    backend_span: Span
    request_plane_set: bool = False  # the recipe spells dynamo.request_plane


def _request_plane(out: _Out, ctx: Context) -> None:
    out.add("--request-plane", ctx.request_plane[1])
    if ctx.request_plane_set:
        out.recipe(ctx.request_plane[0], ctx.request_plane[1])
    else:
        out.add(ctx.request_plane[0], ctx.request_plane[1])


def _model_flags(out: _Out, ctx: Context, model_flag: str, served: tuple[str, Span] | None) -> None:
    """The model argument, then ``--served-model-name`` (the recipe's, else the model's name)."""
    out.add(model_flag, ctx.backend_span)
    out.add(ctx.model_arg[0], ctx.model_arg[1], ctx.model_arg[2])
    out.add("--served-model-name", ctx.backend_span)
    if served:
        out.add(served[0], served[1])
    else:
        out.add(ctx.model_name[0], ctx.model_name[1], ctx.model_name[2])


def _listen(out: _Out, ctx: Context, port: str) -> None:
    out.add("--host", ctx.anchor)
    out.add("0.0.0.0", ctx.anchor)
    out.add("--port", ctx.anchor)
    out.sym(port, ctx.anchor)


def _node_rank(out: _Out, ctx: Context) -> None:
    out.add("--nnodes", ctx.backend_span)
    out.add(str(ctx.topo.nodes), ctx.backend_span)
    out.add("--node-rank", ctx.backend_span)
    out.add("0", ctx.backend_span)


def _dp_endpoint(out: _Out, ctx: Context) -> None:
    out.add("--data-parallel-address", ctx.backend_span)
    out.sym("leader-ip", ctx.backend_span)
    out.add("--data-parallel-rpc-port", ctx.backend_span)
    out.sym("dp-rpc-port", ctx.backend_span)


def _device_ids(out: _Out, ctx: Context) -> None:
    if not _truthy(ctx.backend, "set_cuda_visible_devices"):
        out.add("--device-ids", ctx.backend_span)
        out.sym("device-ids", ctx.backend_span)


def _dump_config(out: _Out, ctx: Context) -> None:
    out.add("--dump-config-to", ctx.anchor)
    out.sym("config-dump-path", ctx.anchor)


def build_vllm(ctx: Context) -> Command:
    config, _ = role_config(ctx.backend, "vllm_config", ctx.mode)
    out = _Out(ctx.anchor)
    served = served_name(ctx.backend, "vllm_config")
    multi = ctx.topo.nodes > 1
    if ctx.frontend == "vllm":
        return _direct_vllm(ctx, config, served, multi)
    _model_flags(out, ctx, "--model", served)
    if ctx.mode in ("prefill", "decode"):
        out.add("--disaggregation-mode", ctx.backend_span)
        out.add(ctx.mode, ctx.backend_span)
    mode_conn = config.pop("connector", None)
    conn_node = ctx.backend.get("connector") if ctx.backend else None
    if mode_conn is not None and mode_conn[1].value is not None:
        conn, conn_span = mode_conn[1].value, mode_conn[1].span
    elif ctx.backend is not None and ctx.backend.key_span("connector") is not None:
        conn, conn_span = conn_node.value, conn_node.span  # type: ignore[union-attr]
    else:
        conn, conn_span = "nixl", ctx.backend_span  # VLLMProtocol.connector default
    if conn and conn not in ("null", "none"):
        preset = _CONNECTOR_MAP.get(str(conn).lower())
        out.add("--kv-transfer-config", conn_span)
        out.add(json.dumps(preset) if preset else py_str(conn), conn_span)
    _device_ids(out, ctx)
    dp = any(
        k in config and config[k][1].value is not None
        for k in ("data-parallel-size", "data_parallel_size")
    )
    per_node = _scalar(ctx.backend, "dp_launch_mode", "per_node") == "per_node"
    if dp and per_node:
        _pop(config, "data-parallel-rpc-port")
        _pop(config, "data_parallel_rpc_port")
        for key in (
            "data-parallel-size-local",
            "data_parallel_size_local",
            "data-parallel-start-rank",
            "data_parallel_start_rank",
            "data-parallel-hybrid-lb",
            "data_parallel_hybrid_lb",
            "headless",
        ):
            config.pop(key, None)
        tp = _value(config, "tensor-parallel-size", "tensor_parallel_size") or 1
        pp = _value(config, "pipeline-parallel-size", "pipeline_parallel_size") or 1
        replica = _int(tp) * _int(pp)
        if replica > ctx.topo.local_gpus:
            _rendezvous(out, ctx, multi_dp=True)
        else:
            out.add("--data-parallel-size-local", ctx.backend_span)
            out.add(str(ctx.topo.local_gpus // max(1, replica)), ctx.backend_span)
            out.add("--data-parallel-start-rank", ctx.backend_span)
            out.add("0", ctx.backend_span)
            _dp_endpoint(out, ctx)
            out.add("--data-parallel-hybrid-lb", ctx.backend_span)
    elif dp:
        config.pop("data-parallel-rpc-port", None)
        config.pop("data_parallel_rpc_port", None)
        out.add("--data-parallel-rank", ctx.backend_span)
        out.add("0", ctx.backend_span)
        _dp_endpoint(out, ctx)
    elif multi:
        _rendezvous(out, ctx, multi_dp=False)
    _request_plane(out, ctx)
    _dump_config(out, ctx)
    _kv_events(out, ctx, vllm=True)
    config_flags(config, out)
    ep = [Token(t, ctx.backend_span) for t in ("python3", "-m", "dynamo.vllm")]
    return Command([], ep, out.tokens, {}, out.recipe_idx)


def _direct_vllm(ctx: Context, config: dict, served, multi: bool) -> Command:
    out = _Out(ctx.anchor)
    for key in ("headless", "host", "port", "master-addr", "nnodes", "node-rank"):
        for k in [k for k in config if k.replace("_", "-") == key]:
            config.pop(k)
    config.pop("connector", None)
    if "served-model-name" not in config:
        if served:
            out_name = (served[0], served[1], False)
        else:
            out_name = ctx.model_name
        config["served-model-name"] = (ctx.backend_span, Node(out_name[0], out_name[1]))
    out.add(ctx.model_arg[0], ctx.model_arg[1], ctx.model_arg[2])
    _listen(out, ctx, "frontend-port")
    if multi:
        _rendezvous(out, ctx, multi_dp=False)
    _device_ids(out, ctx)
    config_flags(config, out)
    ep = [Token(t, ctx.backend_span) for t in ("vllm", "serve")]
    return Command([], ep, out.tokens, {}, out.recipe_idx)


def _rendezvous(out: _Out, ctx: Context, *, multi_dp: bool) -> None:
    out.add("--master-addr", ctx.backend_span)
    out.sym("leader-ip", ctx.backend_span)
    _node_rank(out, ctx)
    if multi_dp:
        _dp_endpoint(out, ctx)


def _kv_events(out: _Out, ctx: Context, *, vllm: bool) -> None:
    node = ctx.backend.get("kv_events_config") if ctx.backend else None
    if node is None or not node.value:
        return
    cfg: dict | None = None
    base = {"publisher": "zmq", "topic": "kv-events"}
    if vllm:
        base["enable_kv_cache_events"] = True
    if node.value is True:
        cfg = dict(base) if ctx.mode in ("prefill", "decode") else None
    elif node.is_map:
        sub = node.get(MODE_KEYS[ctx.mode] if ctx.mode == "agg" else ctx.mode)
        if sub is not None and sub.value is True:
            cfg = dict(base)
        elif sub is not None and sub.is_map:
            cfg = {**base, **sub.plain()}  # type: ignore[dict-item]
    if cfg is None:
        return
    cfg["endpoint"] = "tcp://*:<kv-events-port>"
    out.add("--kv-events-config", node.span)
    out.add(json.dumps(cfg), node.span, True)


def build_sglang(ctx: Context) -> Command:
    config, _ = role_config(ctx.backend, "sglang_config", ctx.mode)
    for key in (
        "model-path",
        "model_path",
        "served-model-name",
        "served_model_name",
        "nccl-port",
        "nccl_port",
    ):
        config.pop(key, None)
    out = _Out(ctx.anchor)
    served = served_name(ctx.backend, "sglang_config")
    use_sglang = ctx.frontend == "sglang"
    _model_flags(out, ctx, "--model-path", served)
    _listen(out, ctx, "http-port")
    out.add("--nccl-port", ctx.anchor)
    out.sym("nccl-port", ctx.anchor)
    if ctx.mode != "agg":
        out.add("--disaggregation-mode", ctx.backend_span)
        out.add(ctx.mode, ctx.backend_span)
        if ctx.mode == "prefill":
            out.add("--disaggregation-bootstrap-port", ctx.anchor)
            out.sym("bootstrap-port", ctx.anchor)
    if ctx.topo.nodes > 1:
        out.add("--dist-init-addr", ctx.backend_span)
        out.sym("leader-ip:dist-init-port", ctx.backend_span)
        _node_rank(out, ctx)
    if not use_sglang:
        _dump_config(out, ctx)
    _kv_events(out, ctx, vllm=False)
    if not use_sglang:
        _request_plane(out, ctx)
    config_flags(config, out)
    module = "sglang.launch_server" if use_sglang else "dynamo.sglang"
    ep = [Token(t, ctx.backend_span) for t in ("python3", "-m", module)]
    return Command([], ep, out.tokens, {}, out.recipe_idx)


def build_trtllm(ctx: Context) -> Command:
    block = ctx.backend.get("trtllm_config") if ctx.backend else None
    role = block.get(MODE_KEYS[ctx.mode]) if block is not None else None
    path = f"/logs/trtllm_config_{ctx.mode}.yaml"
    numa = _scalar(ctx.backend, "numa_memory_bind", None)
    if numa is None:
        use_numactl = ctx.topo.gpu_type in ("gb200", "gb300") and ctx.mode in ("prefill", "decode")
    else:
        use_numactl = bool(numa) and ctx.mode in ("prefill", "decode")
    prefix = [
        Token(t, ctx.backend_span)
        for t in (["numactl", "-m", "0,1"] if use_numactl else []) + ["trtllm-llmapi-launch"]
    ]
    out = _Out(ctx.anchor)
    files = {path: role} if role is not None else {}
    if ctx.frontend == "trtllm_serve":
        out.add(ctx.model_arg[0], ctx.model_arg[1], ctx.model_arg[2])
        _listen(out, ctx, "http-port")
        for flag, key in (
            ("--tensor_parallel_size", "tensor_parallel_size"),
            ("--moe_expert_parallel_size", "moe_expert_parallel_size"),
            ("--pipeline_parallel_size", "pipeline_parallel_size"),
        ):
            node = role.get(key) if role is not None else None
            if node is not None and node.value is not None:
                out.add(flag, role.key_span(key))  # type: ignore[union-attr]
                out.add(py_str(node.plain()), node.span)
        out.add("--config", ctx.anchor)
        out.add(path, role.span if role is not None else ctx.anchor)
        return Command(
            prefix, [Token("trtllm-serve", ctx.backend_span)], out.tokens, files, out.recipe_idx
        )
    _model_flags(out, ctx, "--model-path", None)
    if ctx.mode != "agg":
        out.add("--disaggregation-mode", ctx.backend_span)
        out.add(ctx.mode, ctx.backend_span)
    out.add("--extra-engine-args", role.span if role is not None else ctx.anchor)
    out.add(path, role.span if role is not None else ctx.anchor)
    _request_plane(out, ctx)
    if _truthy(ctx.backend, "publish_events_and_metrics"):
        out.add("--publish-events-and-metrics", ctx.backend.key_span("publish_events_and_metrics"))
    ep = [Token(t, ctx.backend_span) for t in ("python3", "-m", "dynamo.trtllm")]
    return Command(prefix, ep, out.tokens, files, out.recipe_idx)


BUILDERS = {"vllm": build_vllm, "sglang": build_sglang, "trtllm": build_trtllm}


def _truthy(node: Node | None, key: str) -> bool:
    got = node.get(key) if node is not None else None
    return bool(got is not None and got.value)


def _scalar(node: Node | None, key: str, default: object) -> object:
    got = node.get(key) if node is not None else None
    return default if got is None else got.value


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1
