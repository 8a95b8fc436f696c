"""Which variants, hardware, strategies, features and modes a recipe offers, and the
hardware-keyed lookups the site uses (recipe-format.md sections 4 and 5)."""

from __future__ import annotations

import math

from servelint.model import Token
from servelint.readers.recipe import HardwareProfile, Recipe, scalar_value
from servelint.readers.yamlpos import Map, Node, Scalar, Seq, at, js_string

# ----------------------------------------------------------------------------- node helpers


def str_list(node: Node | None) -> list[Token]:
    """Tokens of a YAML list of strings (non-strings read as JavaScript ``String(x)``)."""
    if not isinstance(node, Seq):
        return []
    out = []
    for item in node.items:
        if isinstance(item, Scalar) and item.value is not None:
            out.append(Token(js_string(item.value), item.span))
    return out


def str_set(node: Node | None) -> set[str]:
    return {t.text for t in str_list(node)}


def gen_block(node: Node | None, hw: HardwareProfile) -> Map | None:
    """A generation-keyed block; the ``nvidia`` key is a fallback for NVIDIA GPUs only."""
    if not isinstance(node, Map):
        return None
    block = node.get(hw.generation) if hw.generation else None
    if block is None and hw.brand == "NVIDIA":
        block = node.get("nvidia")
    return block if isinstance(block, Map) else None


def exact_block(node: Node | None, hw: HardwareProfile) -> Map | None:
    block = node.get(hw.id) if isinstance(node, Map) else None
    return block if isinstance(block, Map) else None


def hw_keyed(node: Node | None, hw: HardwareProfile) -> Node | None:
    """Lookup keyed exact GPU id > generation > lowercase brand > ``default``."""
    if not isinstance(node, Map):
        return None
    for key in (hw.id, hw.generation, hw.brand.lower(), "default"):
        if key and key in node:
            return node.get(key)
    return None


def number(node: Node | None) -> float | None:
    value = scalar_value(node)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


# ----------------------------------------------------------------------------- variants / hardware


def variant_keys(recipe: Recipe) -> list[str]:
    variants = recipe.node("variants")
    return (
        [k for k, v in variants.items() if isinstance(v, Map)] if isinstance(variants, Map) else []
    )


def hardware_status(recipe: Recipe, hw_id: str) -> str | None:
    return _opt_str(recipe.node("meta", "hardware", hw_id))


def _opt_str(node: Node | None) -> str | None:
    value = scalar_value(node)
    return None if value is None else js_string(value)


def precision_allows(recipe: Recipe, variant: str, hw: HardwareProfile) -> bool:
    constraint = recipe.node("variants", variant, "precision_hardware")
    if isinstance(constraint, Map):
        for key, want in (("brand", hw.brand), ("generation", hw.generation)):
            value = _opt_str(constraint.get(key))
            if value is not None and value.lower() != want.lower():
                return False
        return True
    precision = _opt_str(recipe.node("variants", variant, "precision")) or ""
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
    if isinstance(supported, Seq) and hw.id not in str_set(supported):
        return False
    return precision_allows(recipe, variant, hw)


def offered_hardware(recipe: Recipe, variant: str) -> list[HardwareProfile]:
    return [hw for hw in recipe.repo.hardware.values() if hardware_offered(recipe, variant, hw)]


def fits(recipe: Recipe, variant: str, hw: HardwareProfile) -> bool:
    need = number(recipe.node("variants", variant, "vram_minimum_gb"))
    return need is None or hw.vram_gb is None or need <= hw.vram_gb


def effective_variant(recipe: Recipe, variant: str, hw: HardwareProfile) -> str:
    """On non-scalable hardware an oversize variant gives way to the largest fitting one."""
    if hw.scalable or fits(recipe, variant, hw):
        return variant
    best: tuple[float, str] | None = None
    for key in variant_keys(recipe):
        if key == variant or not hardware_offered(recipe, key, hw) or not fits(recipe, key, hw):
            continue
        size = number(recipe.node("variants", key, "vram_minimum_gb")) or 0
        if best is None or size > best[0]:
            best = (size, key)
    return best[1] if best else variant


# ----------------------------------------------------------------------------- strategies


def deploy_type(recipe: Recipe, strategy: str) -> str:
    return str(scalar_value(at(recipe.repo.strategies.get(strategy), "deploy_type")) or "")


def strategy_status(recipe: Recipe, strategy: str, hw: HardwareProfile) -> str | None:
    return _opt_str(hw_keyed(recipe.node("strategy_hardware", strategy), hw))


def offered_strategies(recipe: Recipe) -> list[str]:
    """``compatible_strategies`` plus strategies granted ``supported`` anywhere."""
    out = [s for s in (t.text for t in str_list(recipe.node("compatible_strategies")))]
    granted = recipe.node("strategy_hardware")
    if isinstance(granted, Map):
        for strategy, by_hw in granted.items():
            if strategy in out or not isinstance(by_hw, Map):
                continue
            if any(_opt_str(v) == "supported" for _, v in by_hw.items()):
                out.append(strategy)
    return list(dict.fromkeys(out))


def min_gpus(recipe: Recipe, strategy: str, hw: HardwareProfile) -> float:
    """The recipe's GPU floor for a strategy on a GPU (highest applicable value wins)."""

    def walk(node: Node | None) -> float:
        value = number(node)
        if value is not None:
            return value
        if not isinstance(node, Map):
            return 0
        return max([walk(v) for k, v in node.items() if k in (strategy, hw.id)] or [0])

    return walk(recipe.node("strategy_min_gpus"))


def strategies_for(recipe: Recipe, hw: HardwareProfile) -> list[str]:
    """Strategies offered on one GPU, in offer order."""
    compatible = str_set(recipe.node("compatible_strategies"))
    out = []
    for strategy in offered_strategies(recipe):
        if strategy not in recipe.repo.strategies:
            continue
        status = strategy_status(recipe, strategy, hw)
        if status == "unsupported" or (strategy not in compatible and status != "supported"):
            continue
        kind = deploy_type(recipe, strategy)
        if kind != "single_node" and not hw.scalable:
            continue
        if kind == "single_node" and min_gpus(recipe, strategy, hw) > hw.gpu_count:
            continue
        out.append(strategy)
    return out


def node_count(recipe: Recipe, strategy: str, hw: HardwareProfile) -> int:
    """Nodes the JSON API uses for a multi-node rendering."""
    if deploy_type(recipe, strategy) == "single_node":
        return 1
    floor = min_gpus(recipe, strategy, hw)
    return max(2, math.ceil(floor / hw.gpu_count)) if hw.gpu_count else 2


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
        if isinstance(allowed, Seq) and variant not in str_set(allowed):
            continue
        gate = mode.get("hardware")
        if isinstance(gate, Map) and any(
            _opt_str(gate.get(k)) == "unsupported" for k in (hw.generation, hw.id)
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
        _opt_str(recipe.node("variants", variant, "default_modes", feature)),
        _opt_str(recipe.node("features", feature, "default_mode")),
    ):
        if want is not None and want in candidates:
            return want
    return candidates[0] if candidates else None
