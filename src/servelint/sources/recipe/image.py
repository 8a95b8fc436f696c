"""Docker image precedence and the displayed vLLM floor of a rendering (recipe-format.md 5.8,
5.9)."""

from __future__ import annotations

from servelint.model import Span
from servelint.sources.common.yamlpos import Map, Node, Scalar, at, js_string
from servelint.sources.recipe.load import HardwareProfile, Recipe, scalar_value
from servelint.sources.recipe.nodes import exact_block

_BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")
_DEFAULT_REPO = {
    "nvidia": "vllm/vllm-openai",
    "amd": "vllm/vllm-openai-rocm",
    "tpu": "vllm/vllm-tpu",
}


def brand_key(hw: HardwareProfile) -> str:
    if hw.generation == "tpu":
        return "tpu"
    if hw.brand == "AMD":
        return "amd"
    if hw.generation in ("cpu", "xpu") or hw.brand == "Intel":
        return "intel"
    return "nvidia"  # Ascend too: its recipes pin images per GPU


def _cuda_pick(node: Map) -> Scalar | None:
    for key in ("cu130", "cu129"):  # the site's default CUDA is cu130
        value = node.get(key)
        if isinstance(value, Scalar) and value.value:
            return value
    return None


def _level(node: Node | None, brand: str) -> Scalar | None:
    """One ``docker_image`` level: a string (NVIDIA only), a brand map, or a CUDA map."""
    if isinstance(node, Scalar):
        return node if brand == "nvidia" and isinstance(node.value, str) and node.value else None
    if not isinstance(node, Map):
        return None
    if any(k in node for k in _BRAND_KEYS):
        value = node.get(brand)
        if isinstance(value, Scalar) and isinstance(value.value, str) and value.value:
            return value
        if brand == "nvidia" and isinstance(value, Map) and ("cu129" in value or "cu130" in value):
            return _cuda_pick(value)
        return None
    if brand == "nvidia" and ("cu129" in node or "cu130" in node):
        return _cuda_pick(node)
    return None


def image_for(recipe: Recipe, variant: str, hw: HardwareProfile) -> tuple[str | None, Span | None]:
    """The image a rendering runs in, and the scalar that chose it (None for brand defaults)."""
    pin = at(
        exact_block(recipe.node("variants", variant, "hardware_overrides"), hw), "docker_image"
    )
    if isinstance(pin, Scalar) and isinstance(pin.value, str) and pin.value:
        return pin.value, pin.span
    brand = brand_key(hw)
    for node in (
        recipe.node("variants", variant, "docker_image"),
        recipe.node("model", "docker_image"),
    ):
        found = _level(node, brand)
        if found is not None:
            return js_string(found.value), found.span
    if hw.generation == "xpu":
        return "vllm/vllm-openai-xpu:latest", None
    nightly = scalar_value(recipe.node("model", "nightly_required")) is True
    if brand == "intel":  # no Intel CPU nightly image: the site leaves it undefined
        return (None, None) if nightly else ("vllm/vllm-openai-cpu:latest-x86_64", None)
    return f"{_DEFAULT_REPO[brand]}:{'nightly' if nightly else 'latest'}", None


def _version_key(text: str) -> list[int]:
    return [int(p) if p.isdigit() else 0 for p in text.split(".")]


def floor_for(recipe: Recipe, variant: str) -> tuple[str | None, Span | None]:
    """Displayed ``min_vllm_version``: max of model and variant floors (non-numbers count 0)."""
    best: tuple[str | None, Span | None] = (None, None)
    for node in (
        recipe.node("model", "min_vllm_version"),
        recipe.node("variants", variant, "min_vllm_version"),
    ):
        if not isinstance(node, Scalar) or node.value is None or node.value == "":
            continue
        text = js_string(node.value)
        if best[0] is None or _version_key(text) > _version_key(best[0]):
            best = (text, node.span)
    return best
