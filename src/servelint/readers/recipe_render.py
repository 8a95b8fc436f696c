"""Render a vLLM recipe into the launches the recipes site shows (recipe-format.md section 5).

Every argv token and env entry keeps the span of the YAML scalar (env: the key) it came from.
Generated size flags point at the strategy file's ``parallel_flag`` scalar; their value points
at an explicit ``tp`` scalar, else at the recipe's ``variants.<v>`` key (auto-fit / full node).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from servelint.model import EnvVar, LaunchSpec, Span, Token
from servelint.readers import recipe_select as sel
from servelint.readers.problems import ReadProblem
from servelint.readers.recipe import HardwareProfile, Recipe, load_recipe, scalar_value
from servelint.readers.recipe_text import command_lines, dedupe, export_lines
from servelint.readers.yamlpos import Map, Node, Scalar, Seq, at, js_string

FeatureChoice = str | bool  # a mode id, True (on, default mode) or False (off)

_SYMBOLIC = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$")
_BRAND_DEFAULT_IMAGES = {
    "nvidia": "vllm/vllm-openai",
    "amd": "vllm/vllm-openai-rocm",
    "tpu": "vllm/vllm-tpu",
}


@dataclass(slots=True)
class Rendering:
    recipe: str  # hf id of the recipe file
    path: str
    variant: str
    hardware: str
    strategy: str  # "" for omni renderings
    features: dict[str, FeatureChoice]
    label: str
    argv: list[Token]  # "vllm", "serve", model id, flags...
    env: list[EnvVar]
    image: str | None
    image_span: Span | None
    floor: str | None
    floor_span: Span | None
    anchor: Span
    engine: str = "vllm"  # "vllm-omni" for omni recipes
    node_rank: int | None = None  # multi-node: 0 = head
    nodes: int = 1
    task: str | None = None  # omni task preset key

    @property
    def argv_text(self) -> list[str]:
        return [t.text for t in self.argv]

    @property
    def env_dict(self) -> dict[str, str]:
        return {e.name: e.value for e in self.env}

    def command_text(self) -> str:
        """``export`` lines, a blank line, then the command, as the site's pip/uv tab prints it."""
        body = command_lines(self.argv[2].text, self.argv[3:])
        exports = export_lines(self.env)
        return "\n".join(exports) + "\n\n" + body if exports else body

    def to_launch_spec(self) -> LaunchSpec:
        context = {"recipe": self.recipe, "variant": self.variant, "strategy": self.strategy}
        context["features"] = ",".join(
            k if v is True else f"{k}={v}" for k, v in self.features.items() if v is not False
        )
        if self.node_rank is not None:
            context["node_rank"] = str(self.node_rank)
            context["nodes"] = str(self.nodes)
        if self.task:
            context["task"] = self.task
        return LaunchSpec(
            engine=self.engine,
            entrypoint="vllm serve",
            argv=list(self.argv[2:]),
            path=self.path,
            anchor=self.anchor,
            env=list(self.env),
            image=self.image,
            image_span=self.image_span,
            floor=self.floor,
            floor_span=self.floor_span,
            gpu=self.hardware,
            rendering=self.label,
            origin="recipe",
            context=context,
        )


@dataclass(slots=True)
class RenderResult:
    renderings: list[Rendering] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


# ----------------------------------------------------------------------------- building blocks


class _Env:
    """Env map built by successive assignment; a key keeps its first position."""

    def __init__(self) -> None:
        self.vars: dict[str, EnvVar] = {}

    def apply(self, node: Node | None) -> None:
        if not isinstance(node, Map):
            return
        for key, value in node.entries:
            name = js_string(key.value)
            text = js_string(value.value) if isinstance(value, Scalar) else ""
            symbolic = bool(_SYMBOLIC.match(text))
            if name in self.vars:
                var = self.vars[name]
                var.value, var.span, var.symbolic = text, key.span, symbolic
            else:
                self.vars[name] = EnvVar(name, text, key.span, symbolic)

    def items(self) -> list[EnvVar]:
        return list(self.vars.values())


def _tokens(node: Node | None) -> list[Token]:
    out = sel.str_list(node)
    for tok in out:
        tok.symbolic = bool(_SYMBOLIC.match(tok.text))
    return out


def _synth(text: str, span: Span | None) -> Token:
    return Token(text, span, symbolic=bool(_SYMBOLIC.match(text)))


def _version_key(text: str) -> list[int]:
    return [int(p) if p.isdigit() else 0 for p in text.split(".")]


def _floor(recipe: Recipe, variant: str) -> tuple[str | None, Span | None]:
    best: tuple[str | None, Span | None] = (None, None)
    for node in (
        recipe.node("model", "min_vllm_version"),
        recipe.node("variants", variant, "min_vllm_version"),
    ):
        if not isinstance(node, Scalar) or node.value is None:
            continue
        text = js_string(node.value)
        if best[0] is None or _version_key(text) > _version_key(best[0]):
            best = (text, node.span)
    return best


def _brand_key(hw: HardwareProfile) -> str:
    if hw.generation == "tpu" or hw.brand == "Google":
        return "tpu"
    if hw.brand == "AMD":
        return "amd"
    if hw.brand == "Intel" or hw.generation in ("cpu", "xpu"):
        return "intel"
    return "nvidia"


def _image_level(node: Node | None, brand: str) -> Scalar | None:
    if isinstance(node, Scalar):
        return node if brand == "nvidia" and node.value else None
    if not isinstance(node, Map):
        return None
    if brand in node:  # brand-keyed map
        value = node.get(brand)
        if isinstance(value, Map):
            value = value.get("cu130") if brand == "nvidia" else None
        return value if isinstance(value, Scalar) and value.value else None
    if "cu130" in node or "cu129" in node:  # bare CUDA map: NVIDIA only
        value = node.get("cu130")
        return value if brand == "nvidia" and isinstance(value, Scalar) else None
    return None


def _image(recipe: Recipe, variant: str, hw: HardwareProfile) -> tuple[str | None, Span | None]:
    pin = at(
        sel.exact_block(recipe.node("variants", variant, "hardware_overrides"), hw), "docker_image"
    )
    if isinstance(pin, Scalar) and pin.value:
        return js_string(pin.value), pin.span
    brand = _brand_key(hw)
    for node in (
        recipe.node("variants", variant, "docker_image"),
        recipe.node("model", "docker_image"),
    ):
        found = _image_level(node, brand)
        if found is not None:
            return js_string(found.value), found.span
    nightly = scalar_value(recipe.node("model", "nightly_required")) is True
    if brand == "intel":
        if hw.generation == "xpu":
            return "vllm/vllm-openai-xpu:latest", None
        # There is no Intel CPU nightly image: the site leaves the image undefined.
        return (None, None) if nightly else ("vllm/vllm-openai-cpu:latest-x86_64", None)
    return f"{_BRAND_DEFAULT_IMAGES[brand]}:{'nightly' if nightly else 'latest'}", None


def _model_token(recipe: Recipe, variant: str, task: Map | None = None) -> Token:
    for node in (
        at(task, "model_id"),
        recipe.node("variants", variant, "model_id"),
        recipe.node("model", "model_id"),
    ):
        if isinstance(node, Scalar) and node.value:
            return Token(js_string(node.value), node.span)
    return Token(recipe.hf_id, recipe.root.span)


def _variant_anchor(recipe: Recipe, variant: str) -> Span:
    variants = recipe.node("variants")
    key = variants.key_node(variant) if isinstance(variants, Map) else None
    return key.span if key is not None else recipe.root.span


# ----------------------------------------------------------------------------- TP and size flags


def _explicit_tp(recipe: Recipe, variant: str, hw: HardwareProfile) -> Scalar | None:
    for node in (
        recipe.node("variants", variant, "tp"),
        recipe.node("strategy_overrides", "single_node_tp", "tp"),
    ):
        if isinstance(node, Map):
            node = sel.hw_keyed(node, hw)
        value = sel.number(node)
        if value is not None and value > 0:
            assert isinstance(node, Scalar)
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
    need = sel.number(recipe.node("variants", variant, "vram_minimum_gb"))
    per_gpu = hw.per_gpu_gb
    anchor = _variant_anchor(recipe, variant)
    if need is None or per_gpu is None:
        return hw.gpu_count, anchor
    return (1 if need <= per_gpu else hw.gpu_count), anchor


def _size_flags(
    recipe: Recipe, variant: str, strategy: str, hw: HardwareProfile, nodes: int, rank: int
) -> list[Token]:
    sfile = recipe.repo.strategies[strategy]
    flag_node = sfile.get("parallel_flag")
    flag = js_string(flag_node.value) if isinstance(flag_node, Scalar) else "--tensor-parallel-size"
    fspan = flag_node.span if flag_node is not None else sfile.span
    anchor = _variant_anchor(recipe, variant)
    g = hw.gpu_count
    kind = sel.deploy_type(recipe, strategy)
    if kind == "single_node" or nodes <= 1:
        if strategy == "single_node_tp":
            size, vspan = tensor_parallel_size(recipe, variant, hw)
        else:
            size, vspan = g, anchor
        return [Token(flag, fspan), Token(str(size), vspan)]
    layout = js_string(scalar_value(sfile.get("parallelism")) or "")
    pspan = sfile.get("parallelism").span if "parallelism" in sfile else fspan  # type: ignore[union-attr]
    n = str(nodes)

    def t(text: str, span: Span = fspan) -> Token:
        return _synth(text, span)

    if layout == "tp_pp":
        out = [
            t("--tensor-parallel-size", pspan),
            t(str(g), anchor),
            t("--pipeline-parallel-size", pspan),
            t(n, anchor),
        ]
        out += _rendezvous(nodes, rank, pspan, anchor)
        return out
    if layout == "tp_dp":
        out = [
            t("--tensor-parallel-size", pspan),
            t(str(g), anchor),
            t("--data-parallel-size", pspan),
            t(n, anchor),
            t("--data-parallel-size-local", pspan),
            t("1", pspan),
            t("--data-parallel-address", pspan),
            t("$HEAD_IP", pspan),
        ]
        if rank > 0:
            out += [t("--data-parallel-start-rank", pspan), t(str(rank), anchor)]
        return out
    if flag == "--data-parallel-size":
        local = _dp_local(recipe, strategy) or str(g)
        out = [
            t(flag),
            t(str(g * nodes), anchor),
            t("--data-parallel-size-local"),
            t(str(g), anchor),
            t("--data-parallel-address"),
            t("$HEAD_IP"),
        ]
        if rank > 0:
            out += [t("--data-parallel-start-rank"), t(str(rank * int(local)), anchor)]
        return out
    return [t(flag), t(str(g * nodes), anchor), *_rendezvous(nodes, rank, fspan, anchor)]


def _rendezvous(nodes: int, rank: int, span: Span, anchor: Span) -> list[Token]:
    out = [
        _synth("--nnodes", span),
        _synth(str(nodes), anchor),
        _synth("--node-rank", span),
        _synth(str(rank), anchor),
        _synth("--master-addr", span),
        _synth("$HEAD_IP", span),
    ]
    if rank > 0:
        out.append(_synth("--headless", span))
    return out


def _dp_local(recipe: Recipe, strategy: str) -> str | None:
    so = recipe.node("strategy_overrides", strategy)
    tokens = _tokens(at(so, "extra_args")) + _tokens(at(so, "vllm_args"))
    for i, tok in enumerate(tokens[:-1]):
        if tok.text == "--data-parallel-size-local" and tokens[i + 1].text.isdigit():
            return tokens[i + 1].text
    return None


# ----------------------------------------------------------------------------- one rendering


@dataclass(slots=True)
class _Selection:
    variant: str
    hw: HardwareProfile
    strategy: str
    features: list[tuple[str, str | None]]  # enabled features in order, with the mode picked
    choices: dict[str, FeatureChoice]  # what the caller switched (for the label)
    nodes: int = 1
    rank: int = 0


def _hw_blocks(recipe: Recipe, sel_: _Selection, field_: str) -> list[Node | None]:
    """Step 5 / env step 7-8: generation blocks (strategy replaces recipe+variant), then exact."""
    hw = sel_.hw
    so_ho = recipe.node("strategy_overrides", sel_.strategy, "hardware_overrides")
    so_gen = sel.gen_block(so_ho, hw)
    if so_gen is not None:
        blocks = [so_gen.get(field_)]
    else:
        blocks = [
            at(sel.gen_block(recipe.node("hardware_overrides"), hw), field_),
            at(
                sel.gen_block(recipe.node("variants", sel_.variant, "hardware_overrides"), hw),
                field_,
            ),
        ]
    blocks.append(at(sel.exact_block(so_ho, hw), field_))
    return blocks


def _feature_tokens(recipe: Recipe, sel_: _Selection) -> list[Token]:
    out: list[Token] = []
    hw = sel_.hw
    for feature, mode in sel_.features:
        fnode = recipe.node("features", feature)
        if not isinstance(fnode, Map):
            continue
        allow = fnode.get("strategies")
        if isinstance(allow, Seq) and sel_.strategy not in sel.str_set(allow):
            continue
        if isinstance(fnode.get("modes"), Map):
            if mode is None:
                continue
            mnode = at(fnode, "modes", mode)
            args = at(mnode, "args")
            override = sel.hw_keyed(at(mnode, "hardware_overrides"), hw)
            if isinstance(override, Map) and "args" in override:
                args = override.get("args")
        else:
            args = fnode.get("args")
            override = sel.gen_block(fnode.get("hardware_overrides"), hw)
            if override is not None and "args" in override:
                args = override.get("args")
        out += _tokens(args)
    return out


def _compose(recipe: Recipe, s: _Selection) -> tuple[list[Token], list[EnvVar]]:
    v = recipe.node("variants", s.variant)
    so = recipe.node("strategy_overrides", s.strategy)
    sfile = recipe.repo.strategies[s.strategy]
    v_exact = sel.exact_block(at(v, "hardware_overrides"), s.hw)
    tokens = _tokens(recipe.node("model", "base_args"))
    tokens += _tokens(at(v, "extra_args")) + _tokens(at(v_exact, "extra_args"))
    tokens += _tokens(sfile.get("vllm_args"))
    tokens += _size_flags(recipe, s.variant, s.strategy, s.hw, s.nodes, s.rank)
    tokens += _tokens(at(so, "extra_args")) + _tokens(at(so, "vllm_args"))
    for block in _hw_blocks(recipe, s, "extra_args"):
        tokens += _tokens(block)
    tokens += _feature_tokens(recipe, s)

    env = _Env()
    env.apply(recipe.node("model", "base_env"))
    env.apply(at(v, "extra_env"))
    env.apply(at(v_exact, "extra_env"))
    env.apply(sfile.get("env"))
    env.apply(at(so, "env"))
    env.apply(at(so, "extra_env"))
    for block in _hw_blocks(recipe, s, "extra_env"):
        env.apply(block)
    return dedupe(tokens), env.items()


def _label(s: _Selection) -> str:
    parts = [s.variant, s.hw.id, s.strategy]
    if s.nodes > 1:
        parts.append(f"node {s.rank}/{s.nodes}")
    modes = dict(s.features)
    extras = []
    for name, choice in s.choices.items():
        if choice is False:
            extras.append(f"-{name}")
        elif name in modes:
            extras.append(name if modes[name] is None else f"{name}={modes[name]}")
    label = " · ".join(parts)
    return label + (" + " + " ".join(extras) if extras else "")


def _feature_map(recipe: Recipe, s: _Selection) -> dict[str, FeatureChoice]:
    """Enabled features -> effective mode (or True); a modes feature with no mode is left out."""
    out: dict[str, FeatureChoice] = {}
    for name, mode in s.features:
        if mode is not None:
            out[name] = mode
        elif not isinstance(recipe.node("features", name, "modes"), Map):
            out[name] = True
    return out


def _render_one(recipe: Recipe, s: _Selection) -> Rendering:
    tokens, env = _compose(recipe, s)
    model = _model_token(recipe, s.variant)
    argv = [Token("vllm", model.span), Token("serve", model.span), model, *tokens]
    image, image_span = _image(recipe, s.variant, s.hw)
    floor, floor_span = _floor(recipe, s.variant)
    return Rendering(
        recipe=recipe.hf_id,
        path=recipe.path,
        variant=s.variant,
        hardware=s.hw.id,
        strategy=s.strategy,
        features=_feature_map(recipe, s),
        label=_label(s),
        argv=argv,
        env=env,
        image=image,
        image_span=image_span,
        floor=floor,
        floor_span=floor_span,
        anchor=_variant_anchor(recipe, s.variant),
        node_rank=s.rank if s.nodes > 1 else None,
        nodes=s.nodes,
    )


def _enabled(
    recipe: Recipe, variant: str, hw: HardwareProfile, choices: Mapping[str, FeatureChoice]
) -> list[tuple[str, str | None]]:
    order = sel.default_features(recipe, variant, hw)
    for feature, choice in choices.items():
        if choice is False:
            order = [f for f in order if f != feature]
            continue
        if feature not in order:
            order.append(feature)  # switched on later: appended, like a click in the UI
        exclusive = {"text_only": "encoder_parallel", "encoder_parallel": "text_only"}.get(feature)
        order = [f for f in order if f != exclusive]
    out = []
    for feature in order:
        choice = choices.get(feature)
        mode = sel.pick_mode(
            recipe, feature, variant, hw, choice if isinstance(choice, str) else None
        )
        out.append((feature, mode))
    return out


# ----------------------------------------------------------------------------- enumeration


def _feature_variations(
    recipe: Recipe, variant: str, hw: HardwareProfile
) -> list[dict[str, FeatureChoice]]:
    """Default features, then each opt-in feature and each mode switched on one at a time."""
    out: list[dict[str, FeatureChoice]] = [{}]
    on = set(sel.default_features(recipe, variant, hw))
    for feature in sel.feature_keys(recipe):
        modes = sel.mode_candidates(recipe, feature, variant, hw)
        if modes:
            default = sel.pick_mode(recipe, feature, variant, hw, None)
            for mode in modes:
                if feature not in on or mode != default:
                    out.append({feature: mode})
        elif feature not in on:
            out.append({feature: True})
    return out


def _strategy_problem(recipe: Recipe, strategy: str) -> str | None:
    if strategy not in recipe.repo.strategies:
        return f"unknown strategy {strategy!r}"
    kind = sel.deploy_type(recipe, strategy)
    if kind not in ("single_node", "multi_node"):
        return f"strategy {strategy!r} ({kind}) is not rendered by servelint yet"
    return None


def render_recipe(
    recipe: Recipe,
    *,
    hardware: str | None = None,
    strategy: str | None = None,
    variant: str | None = None,
    features: Mapping[str, FeatureChoice] | None = None,
) -> RenderResult:
    result = RenderResult()
    variants = sel.variant_keys(recipe)
    if variant is not None and variant not in variants:
        result.problems.append(
            ReadProblem(recipe.path, None, f"unknown variant {variant!r}", "unresolved")
        )
        return result
    if hardware is not None and hardware not in recipe.repo.hardware:
        result.problems.append(
            ReadProblem(recipe.path, None, f"unknown hardware {hardware!r}", "unresolved")
        )
        return result
    if strategy is not None and (why := _strategy_problem(recipe, strategy)):
        kind = "unresolved" if strategy not in recipe.repo.strategies else "unsupported"
        result.problems.append(ReadProblem(recipe.path, None, why, kind))
        return result
    if features:
        known = set(sel.feature_keys(recipe))
        for name in features:
            if name not in known:
                result.problems.append(
                    ReadProblem(recipe.path, None, f"unknown feature {name!r}", "unresolved")
                )
                return result
    if recipe.is_omni:
        from servelint.readers.recipe_omni import render_omni

        render_omni(recipe, result, hardware=hardware, variant=variant)
        return result
    seen: set[tuple] = set()
    for v in [variant] if variant is not None else variants:
        if hardware is not None:
            hws = [recipe.repo.hardware[hardware]]
        else:
            hws = [
                hw
                for hw in sel.offered_hardware(recipe, v)
                if sel.effective_variant(recipe, v, hw) == v
            ]
        for hw in hws:
            strategies = (
                [strategy]
                if strategy is not None
                else [
                    s
                    for s in sel.strategies_for(recipe, hw)
                    if _strategy_problem(recipe, s) is None
                ]
            )
            variations = (
                [dict(features)] if features is not None else _feature_variations(recipe, v, hw)
            )
            for strat in strategies:
                nodes = sel.node_count(recipe, strat, hw)
                for choices in variations:
                    enabled = _enabled(recipe, v, hw, choices)
                    for rank in range(nodes):
                        s = _Selection(v, hw, strat, enabled, choices, nodes, rank)
                        rendering = _render_one(recipe, s)
                        key = (
                            v,
                            hw.id,
                            strat,
                            rank,
                            tuple(rendering.argv_text),
                            tuple(rendering.env_dict.items()),
                        )
                        if key in seen:
                            continue  # a variation that changes nothing here
                        seen.add(key)
                        result.renderings.append(rendering)
    return result


def render(
    recipe_path: str | Path,
    *,
    hardware: str | None = None,
    strategy: str | None = None,
    variant: str | None = None,
    features: Mapping[str, FeatureChoice] | None = None,
) -> RenderResult:
    """Every launch the site renders for a recipe file (or only the selected ones).

    ``features=None`` enumerates the default feature set plus each opt-in feature and each
    mode switched on one at a time; a mapping (``{}`` = defaults) renders exactly that set:
    ``True`` switches a feature on, a string picks its mode, ``False`` switches it off.
    """
    recipe, problems = load_recipe(recipe_path)
    if recipe is None:
        return RenderResult([], problems)
    result = render_recipe(
        recipe, hardware=hardware, strategy=strategy, variant=variant, features=features
    )
    result.problems[:0] = problems
    return result
