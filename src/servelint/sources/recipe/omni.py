"""The site's separate renderer for omni recipes (``meta.tasks`` contains ``omni``),
recipe-format.md 7.1. Renderings are marked ``engine="vllm-omni"``: they run vLLM-Omni,
not plain vLLM, and must not be judged against vLLM profiles."""

from __future__ import annotations

import servelint.sources.recipe.select as sel
from servelint.model import Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, at, js_string
from servelint.sources.recipe.image import floor_for, image_for
from servelint.sources.recipe.load import HardwareProfile, Recipe
from servelint.sources.recipe.nodes import EnvMap, exact_block, gen_block, str_list, variant_anchor
from servelint.sources.recipe.rendering import Rendering, RenderResult, model_token
from servelint.sources.recipe.text import dedupe

# The site's built-in omni task catalog (presets naming another id are not offered).
OMNI_TASK_IDS = ("t2i", "i2i", "t2v", "i2v", "ti2v", "t2a")


def omni_tasks(recipe: Recipe) -> list[tuple[str, Map | None]]:
    """Task presets as (selector key, object or None for a bare catalog id)."""
    tasks = recipe.node("omni", "tasks")
    out: list[tuple[str, Map | None]] = []
    if not isinstance(tasks, Seq):
        return out
    for item in tasks.items:
        if isinstance(item, Scalar) and item.value in OMNI_TASK_IDS:
            out.append((js_string(item.value), None))
        elif isinstance(item, Map):
            task_id = item.get("id")
            if not isinstance(task_id, Scalar) or task_id.value not in OMNI_TASK_IDS:
                continue
            key = item.get("key")
            key = key if isinstance(key, Scalar) and key.value else task_id
            out.append((js_string(key.value), item))
    return out


def _task_model(recipe: Recipe, variant: str, hw: HardwareProfile, task: Map | None) -> Token:
    """Served id: the task's exact-GPU override, task, variant, then model ``model_id``."""
    exact = exact_block(at(task, "hardware_overrides"), hw)
    override = at(exact, "model_id")
    if isinstance(override, Scalar) and override.value:
        return Token(js_string(override.value), override.span)
    return model_token(recipe, variant, task)


def _omni_compose(
    recipe: Recipe, variant: str, hw: HardwareProfile, task: Map | None
) -> tuple[list[Token], EnvMap]:
    v = recipe.node("variants", variant)
    non_default = variant != "default"
    v_gen = gen_block(at(v, "hardware_overrides"), hw)
    v_exact = exact_block(at(v, "hardware_overrides"), hw)
    r_gen = gen_block(recipe.node("hardware_overrides"), hw)
    task_exact = exact_block(at(task, "hardware_overrides"), hw)
    tokens = str_list(recipe.node("model", "base_args"))
    if non_default:
        tokens += str_list(at(v, "extra_args"))
    tokens += str_list(at(task, "extra_args")) + str_list(at(task_exact, "extra_args"))
    for block in (r_gen, v_gen, v_exact):
        tokens += str_list(at(block, "extra_args"))
    port: Node | None = recipe.node("omni", "port")
    if isinstance(port, Scalar) and port.value is not None:
        tokens += [Token("--port", port.span), Token(js_string(port.value), port.span)]
    omni_node = recipe.node("omni")
    omni_span = omni_node.span if omni_node is not None else recipe.root.span
    tokens.append(Token("--omni", omni_span))
    env = EnvMap()
    env.apply(recipe.node("model", "base_env"))
    if non_default:
        env.apply(at(v, "extra_env"))
    for block in (r_gen, v_gen, v_exact):
        env.apply(at(block, "extra_env"))
    return dedupe(tokens), env


def render_omni(
    recipe: Recipe, result: RenderResult, *, hardware: str | None, variant: str | None
) -> None:
    """Append every (variant, hardware, task) rendering of an omni recipe to ``result``."""
    binary = recipe.node("omni", "serve_binary")
    if isinstance(binary, Scalar) and binary.value and binary.value != "vllm serve":
        message = f"omni.serve_binary {binary.value!r} is not rendered by servelint"
        result.problems.append(ReadProblem(recipe.path, binary.span, message, "unsupported"))
        return
    tasks = omni_tasks(recipe) or [("", None)]
    seen: set[tuple] = set()
    for v in [variant] if variant is not None else sel.variant_keys(recipe):
        hws = (
            [recipe.repo.hardware[hardware]]
            if hardware is not None
            else sel.offered_hardware(recipe, v)
        )
        for hw in hws:
            for key, task in tasks:
                tokens, env = _omni_compose(recipe, v, hw, task)
                model = _task_model(recipe, v, hw, task)
                argv = [Token("vllm", model.span), Token("serve", model.span), model, *tokens]
                dedupe_key = (
                    v,
                    hw.id,
                    tuple(t.text for t in argv),
                    tuple((e.name, e.value) for e in env.items()),
                )
                if dedupe_key in seen:
                    continue
                seen.add(dedupe_key)
                image, image_span = image_for(recipe, v, hw)
                floor, floor_span = floor_for(recipe, v)
                label = " · ".join(p for p in (v, hw.id, key) if p)
                result.renderings.append(
                    Rendering(
                        recipe=recipe.hf_id,
                        path=recipe.path,
                        variant=v,
                        hardware=hw.id,
                        strategy="",
                        features={},
                        label=label,
                        argv=argv,
                        env=env.items(),
                        image=image,
                        image_span=image_span,
                        floor=floor,
                        floor_span=floor_span,
                        anchor=variant_anchor(recipe, v),
                        engine="vllm-omni",
                        task=key or None,
                    )
                )
