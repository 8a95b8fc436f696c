"""Parallel-size and rendezvous flags the site generates (recipe-format.md 3.2, 5.3 and 6):
single-node TP auto-fit, multi-node head/follower flags, and prefill/decode pools.

Spans: a generated flag points at the strategy file (``parallel_flag``, ``parallelism`` or the
PD role block); its value at an explicit recipe scalar (``tp``) when one decided it, else at the
recipe's ``variants.<v>`` key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import servelint.sources.recipe.select as sel
from servelint.model import Span, Token
from servelint.sources.common.yamlpos import Map, Scalar, at, js_string
from servelint.sources.recipe.load import HardwareProfile, Recipe, scalar_value
from servelint.sources.recipe.nodes import (
    EnvMap,
    exact_block,
    gen_block,
    hw_keyed,
    number,
    opt_str,
    str_list,
    synth,
    variant_anchor,
)

PD_ROLES = ("prefill", "decode")
# NVL4-only env (NCCL symmetric memory, cross-node NVLink, UCX devices): PD drops it elsewhere.
NVL4_ONLY_ENV = (
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
)
NVL4_HW = ("gb200", "gb300")


# ----------------------------------------------------------------------------- single node


def _explicit_tp(recipe: Recipe, variant: str, hw: HardwareProfile) -> Scalar | None:
    for node in (
        recipe.node("variants", variant, "tp"),
        recipe.node("strategy_overrides", "single_node_tp", "tp"),
    ):
        if isinstance(node, Map):
            node = hw_keyed(node, hw)
        value = number(node)
        if value is not None and value > 0 and isinstance(node, Scalar):
            return node
    return None


def tensor_parallel_size(recipe: Recipe, variant: str, hw: HardwareProfile) -> tuple[int, Span]:
    """single_node_tp size (5.3) and the span that decided it."""
    explicit = _explicit_tp(recipe, variant, hw)
    if explicit is not None:
        value = int(explicit.value)  # type: ignore[arg-type]
        if hw.generation != "cpu":
            value = min(value, hw.gpu_count)
        return value, explicit.span
    need = number(recipe.node("variants", variant, "vram_minimum_gb"))
    per_gpu = hw.per_gpu_gb
    anchor = variant_anchor(recipe, variant)
    if not need or not per_gpu:
        return hw.gpu_count, anchor
    return (1 if need <= per_gpu else hw.gpu_count), anchor


def _parallel_flag(sfile: Map) -> tuple[str, Span]:
    node = sfile.get("parallel_flag")
    if isinstance(node, Scalar) and node.value:
        return js_string(node.value), node.span
    return "--tensor-parallel-size", sfile.span


def size_flags(
    recipe: Recipe, variant: str, strategy: str, hw: HardwareProfile, nodes: int, rank: int,
    memo: dict[tuple, tuple[Token, ...]] | None = None,
) -> list[Token]:
    """Step-3 size flags of a single- or multi-node strategy (rank 0 = head). ``memo`` (one
    per recipe) shares the multi-node flags between GPUs of the same size."""
    sfile = recipe.repo.strategies[strategy]
    flag, fspan = _parallel_flag(sfile)
    anchor = variant_anchor(recipe, variant)
    g = hw.gpu_count
    if sel.deploy_type(recipe, strategy) != "multi_node" or nodes <= 1:
        if strategy == "single_node_tp":
            size, vspan = tensor_parallel_size(recipe, variant, hw)
        else:
            size, vspan = g, anchor
        return [Token(flag, fspan), Token(str(size), vspan)]
    # from here on the flags depend on the GPU only through its count (and the DP-local size)
    local = (_dp_local(recipe, strategy, hw) or g) if flag == "--data-parallel-size" else 0
    if memo is None:
        return _multi_node_flags(sfile, flag, fspan, anchor, g, nodes, rank, local)
    key = (variant, strategy, g, nodes, rank, local)
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple(
            _multi_node_flags(sfile, flag, fspan, anchor, g, nodes, rank, local))
    return list(found)


def _multi_node_flags(
    sfile: Map, flag: str, fspan: Span, anchor: Span, g: int, nodes: int, rank: int, local: int
) -> list[Token]:
    layout_node = sfile.get("parallelism")
    layout = js_string(scalar_value(layout_node) or "")
    pspan = layout_node.span if layout_node is not None else fspan
    n = str(nodes)
    if flag == "--data-parallel-size":
        out = [
            synth(flag, fspan),
            synth(str(g * nodes), anchor),
            synth("--data-parallel-size-local", fspan),
            synth(str(g), anchor),
            synth("--data-parallel-address", fspan),
            synth("$HEAD_IP", fspan),
        ]
        if rank > 0:
            out += [synth("--data-parallel-start-rank", fspan), synth(str(rank * local), anchor)]
        return out
    if layout == "tp_pp":
        return [
            synth("--tensor-parallel-size", pspan),
            synth(str(g), anchor),
            synth("--pipeline-parallel-size", pspan),
            synth(n, anchor),
            *_rendezvous(nodes, rank, "$HEAD_IP", pspan, anchor),
        ]
    if layout == "tp_dp":
        out = [
            synth("--tensor-parallel-size", pspan),
            synth(str(g), anchor),
            synth("--data-parallel-size", pspan),
            synth(n, anchor),
            synth("--data-parallel-size-local", pspan),
            synth("1", pspan),
            synth("--data-parallel-address", pspan),
            synth("$HEAD_IP", pspan),
        ]
        if rank > 0:
            out += [synth("--data-parallel-start-rank", pspan), synth(str(rank), anchor)]
        return out
    return [
        synth("--tensor-parallel-size", fspan),
        synth(str(g * nodes), anchor),
        *_rendezvous(nodes, rank, "$HEAD_IP", fspan, anchor),
    ]


def _rendezvous(nodes: int, rank: int, head: str, span: Span, anchor: Span) -> list[Token]:
    out = [
        synth("--nnodes", span),
        synth(str(nodes), anchor),
        synth("--node-rank", span),
        synth(str(rank), anchor),
        synth("--master-addr", span),
        synth(head, span),
    ]
    if rank > 0:
        out.append(synth("--headless", span))
    return out


def _dp_local(recipe: Recipe, strategy: str, hw: HardwareProfile) -> int | None:
    """A ``--data-parallel-size-local`` the recipe's strategy override tokens set (last one)."""
    so = recipe.node("strategy_overrides", strategy)
    ho = at(so, "hardware_overrides")
    tokens = [
        t.text
        for t in str_list(at(so, "vllm_args"))
        + str_list(at(so, "extra_args"))
        + str_list(at(gen_block(ho, hw), "extra_args"))
        + str_list(at(exact_block(ho, hw), "extra_args"))
    ]
    for i in range(len(tokens) - 2, -1, -1):
        if tokens[i] == "--data-parallel-size-local":
            try:
                return int(float(tokens[i + 1]))
            except ValueError:
                return None
    return None


# ----------------------------------------------------------------------------- pd_cluster


@dataclass(frozen=True, slots=True)
class Pool:
    """One PD role's pool: ``nodes`` 0 = the co-located half-node demo."""

    role: str
    nodes: int
    mode: str  # tp | tep | dep (snapped into the recipe's pool modes)
    raw_mode: str  # before snapping (the env rank rewrite uses it)


def _role_cfg(recipe: Recipe, role: str) -> tuple[Map | None, Map | None]:
    so = recipe.node("strategy_overrides", "pd_cluster", role)
    sfile = at(recipe.repo.strategies.get("pd_cluster"), role)
    return (so if isinstance(so, Map) else None, sfile if isinstance(sfile, Map) else None)


def _role_mode(recipe: Recipe, role: str) -> str:
    so, sf = _role_cfg(recipe, role)
    return opt_str(at(so, "parallelism")) or opt_str(at(sf, "parallelism")) or "tp"


def pd_pools(recipe: Recipe, variant: str, hw: HardwareProfile) -> list[Pool] | None:
    """The JSON API's pool sizing from VRAM; None when it renders no PD (over 4 nodes a role)."""
    need = number(recipe.node("variants", variant, "vram_minimum_gb")) or 0
    node_vram = hw.vram_gb or 0
    co_located = hw.gpu_count >= 2 and node_vram >= 2 * need
    per_role = 0
    if not co_located and node_vram > 0 and need > 0:
        per_role = math.ceil(need / node_vram)
        if per_role > 4:
            return None
    allowed = sel.pd_pool_modes(recipe)
    pools = []
    for role in PD_ROLES:
        raw = _role_mode(recipe, role)
        nodes = max(per_role, sel.nodes_for(recipe, raw, hw)) if per_role else 0
        pools.append(Pool(role, nodes, raw if raw in allowed else allowed[0], raw))
    return pools


def pool_flags(
    recipe: Recipe, variant: str, hw: HardwareProfile, pool: Pool, rank: int
) -> list[Token]:
    """Step 3 of a PD role: the strategy file's role tokens, then the pool layout flags."""
    so, sf = _role_cfg(recipe, pool.role)
    sfile = recipe.repo.strategies["pd_cluster"]
    role_key = sfile.key_node(pool.role)
    rspan = role_key.span if role_key is not None else sfile.span
    anchor = variant_anchor(recipe, variant)
    out = str_list(at(sf, "vllm_args"))
    g = hw.gpu_count
    head = f"${pool.role.upper()}_NODE_1"
    if pool.mode == "dep":
        in_pool = max(1, pool.nodes)
        tp_node = at(so, "tp") if at(so, "tp") is not None else at(sf, "tp")
        tp_value = number(tp_node)
        role_tp = int(tp_value) if tp_value else 1
        local = max(1, g // role_tp)
        if tp_value is not None and tp_node is not None:
            out += [synth("--tensor-parallel-size", rspan), synth(str(role_tp), tp_node.span)]
        out += [
            synth("--data-parallel-size", rspan),
            synth(str(in_pool * local), anchor),
            synth("--data-parallel-size-local", rspan),
            synth(str(local), anchor),
            synth("--data-parallel-start-rank", rspan),
            synth(str(rank * local), anchor),
            synth("--data-parallel-address", rspan),
            synth(head, rspan),
            synth("--data-parallel-rpc-port", rspan),
            synth(f"${pool.role.upper()}_DP_RPC_PORT", rspan),
        ]
        if in_pool > 1:
            out.append(synth("--data-parallel-hybrid-lb", rspan))
        out.append(synth("--enable-expert-parallel", rspan))
        return out
    flag = (
        opt_str(at(so, "parallel_flag"))
        or opt_str(at(sf, "parallel_flag"))
        or _parallel_flag(sfile)[0]
    )
    gpus = g // 2 if pool.nodes == 0 else pool.nodes * g
    out += [synth(flag, rspan), synth(str(max(1, gpus)), anchor)]
    if pool.mode == "tep":
        out.append(synth("--enable-expert-parallel", rspan))
    if pool.nodes > 1:
        out += _rendezvous(pool.nodes, rank, head, rspan, anchor)
    return out


def pd_device_env(env: EnvMap, recipe: Recipe, hw: HardwareProfile, pool: Pool) -> None:
    """Env step 5: GPUs of the role (whole node, or its half of the co-located demo)."""
    sfile = recipe.repo.strategies["pd_cluster"]
    role_key = sfile.key_node(pool.role)
    span = role_key.span if role_key is not None else sfile.span
    g = hw.gpu_count
    if pool.nodes >= 1:
        env.set("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in range(g)), span)
        if pool.nodes >= 2:
            env.set("GLOO_SOCKET_IFNAME", "$IFACE_NAME", span)
            env.set("NCCL_SOCKET_IFNAME", "$IFACE_NAME", span)
    elif g // 2 > 0:
        ids = range(g // 2) if pool.role == "prefill" else range(g // 2, g)
        env.set("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in ids), span)


def pd_env_finish(env: EnvMap, hw: HardwareProfile, pool: Pool, rank: int) -> None:
    """Env step 9: NVL4-only variables dropped off GB200/GB300; DEP ranks bind their own node."""
    if hw.id not in NVL4_HW:
        for name in NVL4_ONLY_ENV:
            env.drop(name)
    if rank > 0 and pool.raw_mode == "dep":
        old, new = f"${pool.role.upper()}_NODE_1", f"${pool.role.upper()}_NODE_{rank + 1}"
        for var in env.items():
            if var.value == old:
                var.value = new
