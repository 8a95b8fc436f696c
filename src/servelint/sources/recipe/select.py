"""Which variants, hardware, strategies, features and modes a recipe offers, and the
hardware-keyed lookups the site uses (recipe-format.md sections 4 and 5)."""

from __future__ import annotations

import math

from servelint.sources.common.yamlpos import Map, Node, Seq, at
from servelint.sources.recipe.load import HardwareProfile, Recipe, scalar_value
from servelint.sources.recipe.nodes import hw_keyed, number, opt_str, str_list, str_set

# ----------------------------------------------------------------------------- variants / hardware


def variant_keys(recipe: Recipe) -> list[str]:
    variants = recipe.node("variants")
    return (
        [k for k, v in variants.items() if isinstance(v, Map)] if isinstance(variants, Map) else []
    )


def hardware_status(recipe: Recipe, hw_id: str) -> str | None:
    return opt_str(recipe.node("meta", "hardware", hw_id))


def precision_allows(recipe: Recipe, variant: str, hw: HardwareProfile) -> bool:
    constraint = recipe.node("variants", variant, "precision_hardware")
    if isinstance(constraint, Map):
        for key, want in (("brand", hw.brand), ("generation", hw.generation)):
            value = opt_str(constraint.get(key))
            if value is not None and value.lower() != want.lower():
                return False
        return True
    precision = opt_str(recipe.node("variants", variant, "precision")) or ""
    if precision.lower() in ("nvfp4", "fp4"):
        return hw.brand == "NVIDIA" and hw.generation == "blackwell"
    return True


def hardware_offered(recipe: Recipe, variant: str, hw: HardwareProfile) -> bool:
    """The site's candidate filters for a GPU (VRAM never blocks a GPU)."""
    status = hardware_status(recipe, hw.id)
    if status == "unsupported":
        return False
    if hw.restricted and status is None:
        return False
    supported = recipe.node("variants", variant, "supported_hardware")
    if isinstance(supported, Seq) and len(supported) and hw.id not in str_set(supported):
        return False
    return precision_allows(recipe, variant, hw)


def offered_hardware(recipe: Recipe, variant: str) -> list[HardwareProfile]:
    return [hw for hw in recipe.repo.hardware.values() if hardware_offered(recipe, variant, hw)]


def fits(recipe: Recipe, variant: str, hw: HardwareProfile) -> bool:
    need = number(recipe.node("variants", variant, "vram_minimum_gb"))
    return need is None or hw.vram_gb is None or need <= hw.vram_gb


def effective_variant(recipe: Recipe, variant: str, hw: HardwareProfile) -> str | None:
    """On non-scalable hardware an oversize variant gives way to the largest fitting one
    (None: nothing fits, the site renders nothing there)."""
    if hw.scalable or fits(recipe, variant, hw):
        return variant
    best: tuple[float, str] | None = None
    for key in variant_keys(recipe):
        if not hardware_offered(recipe, key, hw) or not fits(recipe, key, hw):
            continue
        size = number(recipe.node("variants", key, "vram_minimum_gb")) or 0
        if best is None or size > best[0]:
            best = (size, key)
    return best[1] if best else None


# ----------------------------------------------------------------------------- strategies


def deploy_type(recipe: Recipe, strategy: str) -> str:
    known = recipe.repo.deploy_types
    found = known.get(strategy)
    if found is None:
        node = at(recipe.repo.strategies.get(strategy), "deploy_type")
        found = known[strategy] = str(scalar_value(node) or "")
    return found


def strategy_status(recipe: Recipe, strategy: str, hw: HardwareProfile) -> str | None:
    return opt_str(hw_keyed(recipe.node("strategy_hardware", strategy), hw))


def offered_strategies(recipe: Recipe) -> list[str]:
    """``compatible_strategies`` plus strategies granted ``supported`` anywhere."""
    out = [s for s in (t.text for t in str_list(recipe.node("compatible_strategies")))]
    granted = recipe.node("strategy_hardware")
    if isinstance(granted, Map):
        for strategy, by_hw in granted.items():
            if strategy in out or not isinstance(by_hw, Map):
                continue
            if any(opt_str(v) == "supported" for _, v in by_hw.items()):
                out.append(strategy)
    return list(dict.fromkeys(out))


def _min_gpus_block(node: Node | None, key: str) -> float:
    value = number(node)
    if value is not None:
        return value
    if not isinstance(node, Map):
        return 0
    for name in (key, f"multi_node_{key}", f"single_node_{key}"):
        value = number(node.get(name))
        if value is not None:
            return value
    return 0


def min_gpus(recipe: Recipe, key: str, hw: HardwareProfile) -> float:
    """``strategy_min_gpus`` floor for a strategy id or PD pool mode on a GPU: a number, or a
    map of strategy ids and exact GPU ids (possibly nested); the highest applicable wins."""
    cfg = recipe.node("strategy_min_gpus")
    value = number(cfg)
    if value is not None:
        return value
    if not isinstance(cfg, Map):
        return 0
    return max(_min_gpus_block(cfg, key), _min_gpus_block(cfg.get(hw.id), key))


def nodes_for(recipe: Recipe, key: str, hw: HardwareProfile) -> int:
    """Nodes needed to clear the floor (at least 1)."""
    per_node = hw.gpu_count or 8
    return math.ceil(min_gpus(recipe, key, hw) / per_node) or 1


MAX_NODES = 16  # the most nodes the site offers for one deployment or PD pool


def strategy_supported(recipe: Recipe, strategy: str, hw: HardwareProfile) -> bool:
    """``strategy_hardware`` gate over the ``compatible_strategies`` membership default."""
    status = strategy_status(recipe, strategy, hw)
    if status is not None:
        return status != "unsupported"
    return strategy in str_set(recipe.node("compatible_strategies"))


def strategies_for(recipe: Recipe, hw: HardwareProfile) -> list[str]:
    """Strategies offered on one GPU, in offer order (kv_store deployments excluded)."""
    out = []
    for strategy in offered_strategies(recipe):
        kind = deploy_type(recipe, strategy)
        if strategy not in recipe.repo.strategies or kind == "kv_store_lb":
            continue
        if not strategy_supported(recipe, strategy, hw):
            continue
        scales_out = kind in ("multi_node", "pd_cluster")
        if (MAX_NODES if scales_out else 1) * (hw.gpu_count or 8) < min_gpus(recipe, strategy, hw):
            continue
        if scales_out and not hw.scalable:
            continue
        out.append(strategy)
    return out


def node_count(recipe: Recipe, strategy: str, hw: HardwareProfile) -> int:
    """Nodes the JSON API renders a strategy at (multi-node: at least 2)."""
    base = 2 if deploy_type(recipe, strategy) == "multi_node" else 1
    return max(base, nodes_for(recipe, strategy, hw))


def pd_pool_modes(recipe: Recipe) -> list[str]:
    """PD pool layouts offered: tp/tep/dep from strategy-id suffixes, narrowed by pool_modes."""
    modes = set()
    for strategy in offered_strategies(recipe):
        if strategy == "pd_cluster":
            continue
        if strategy == "dep" or strategy.endswith("_dep"):
            modes.add("dep")
        elif strategy == "tep" or strategy.endswith("_tep"):
            modes.add("tep")
        elif any(strategy == m or strategy.endswith("_" + m) for m in ("tp", "tp_pp", "tp_dp")):
            modes.add("tp")
    ordered = [m for m in ("tp", "tep", "dep") if m in (modes or {"tp"})]
    narrow = str_set(recipe.node("strategy_overrides", "pd_cluster", "pool_modes"))
    if narrow and [m for m in ordered if m in narrow]:
        ordered = [m for m in ordered if m in narrow]
    return ordered


# ----------------------------------------------------------------------------- features / modes


def feature_keys(recipe: Recipe) -> list[str]:
    features = recipe.node("features")
    return features.keys() if isinstance(features, Map) else []


def default_features(recipe: Recipe, variant: str, hw: HardwareProfile) -> list[str]:
    opt_in = str_set(recipe.node("opt_in_features"))
    opt_in |= str_set(recipe.node("hardware_opt_in_features", hw.id))
    forced = recipe.node("variants", variant, "default_modes")
    forced_keys = set(forced.keys()) if isinstance(forced, Map) else set()
    return [f for f in feature_keys(recipe) if f not in opt_in or f in forced_keys]


def opt_in_features(recipe: Recipe, variant: str, hw: HardwareProfile) -> list[str]:
    on = set(default_features(recipe, variant, hw))
    return [f for f in feature_keys(recipe) if f not in on]


def mode_candidates(recipe: Recipe, feature: str, variant: str, hw: HardwareProfile) -> list[str]:
    modes = recipe.node("features", feature, "modes")
    if not isinstance(modes, Map):
        return []
    out = []
    for key, mode in modes.items():
        if not isinstance(mode, Map):
            continue
        allowed = mode.get("variants")
        if isinstance(allowed, Seq) and len(allowed) and variant not in str_set(allowed):
            continue
        gate = mode.get("hardware")
        if isinstance(gate, Map) and any(
            opt_str(gate.get(k)) == "unsupported" for k in (hw.generation, hw.id)
        ):
            continue
        out.append(key)
    return out


def pick_mode(
    recipe: Recipe, feature: str, variant: str, hw: HardwareProfile, choice: str | None
) -> str | None:
    candidates = mode_candidates(recipe, feature, variant, hw)
    for want in (
        choice,
        opt_str(recipe.node("variants", variant, "default_modes", feature)),
        opt_str(recipe.node("features", feature, "default_mode")),
    ):
        if want and want in candidates:
            return want
    return candidates[0] if candidates else None
