"""Render a vLLM recipe into the launches the recipes site shows (recipe-format.md section 5).

Every argv token and env entry keeps the span of the YAML scalar (env: the key) it came from.
Generated size flags point at the strategy file's ``parallel_flag`` scalar; their value points
at an explicit ``tp`` scalar, else at the recipe's ``variants.<v>`` key (auto-fit / full node).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import servelint.sources.recipe.parallel as par
import servelint.sources.recipe.select as sel
from servelint.model import EnvVar, Span, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Seq, YamlDoc, at
from servelint.sources.recipe.image import floor_for, image_for
from servelint.sources.recipe.layout import Layouts
from servelint.sources.recipe.load import HardwareProfile, Recipe, load_recipe
from servelint.sources.recipe.nodes import (
    gen_block,
    hw_keyed,
    str_list,
    str_set,
    variant_anchor,
)
from servelint.sources.recipe.omni import render_omni
from servelint.sources.recipe.parallel import Pool, tensor_parallel_size
from servelint.sources.recipe.rendering import (
    FeatureChoice,
    Rendering,
    RenderResult,
    model_token,
)
from servelint.sources.recipe.text import kept_indexes
from servelint.util.cli_values import did_you_mean

__all__ = [
    "FeatureChoice",
    "Rendering",
    "RenderResult",
    "render",
    "render_recipe",
    "tensor_parallel_size",
]

# ----------------------------------------------------------------------------- one rendering


@dataclass(slots=True, eq=False)
class _Selection:
    """The choices that make one rendering of a recipe (a plain slotted record)."""

    variant: str
    hw: HardwareProfile
    strategy: str
    features: tuple[tuple[str, str | None], ...]  # enabled features in order, with their mode
    choices: dict[str, FeatureChoice]  # what the caller switched (for the label)
    nodes: int = 1  # multi-node: nodes of the deployment
    rank: int = 0  # multi-node: node rank; PD: node of the role's pool
    pool: Pool | None = None  # pd_cluster role


def _feature_tokens(recipe: Recipe, s: _Selection) -> list[Token]:
    out: list[Token] = []
    for feature, mode in s.features:
        fnode = recipe.node("features", feature)
        if not isinstance(fnode, Map):
            continue
        allow = fnode.get("strategies")
        if isinstance(allow, Seq) and len(allow) and s.strategy not in str_set(allow):
            continue
        if isinstance(fnode.get("modes"), Map):
            if mode is None:
                continue
            mnode = at(fnode, "modes", mode)
            args = at(mnode, "args")
            override = hw_keyed(at(mnode, "hardware_overrides"), s.hw)
            if isinstance(override, Map) and override.get("args") is not None:
                args = override.get("args")
        else:
            args = fnode.get("args")
            override = gen_block(fnode.get("hardware_overrides"), s.hw)
            if override is not None and override.get("args") is not None:
                args = override.get("args")
        out += str_list(args)
    return out


def _label(s: _Selection) -> str:
    parts = [s.variant, s.hw.id, s.strategy]
    if s.pool is not None:
        parts.append(s.pool.role)
        if s.pool.nodes > 1:
            parts.append(f"node {s.rank}/{s.pool.nodes}")
    elif s.nodes > 1:
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


class _Memo:
    """What one recipe's renderings share, computed once per recipe. Renderings of one recipe
    share Token and EnvVar objects (neither is mutated once read); each gets its own lists."""

    def __init__(self, recipe: Recipe) -> None:
        self.recipe = recipe
        self.parts = Layouts(recipe)
        # layout key -> (tokens, their texts, env, env (name, value) pairs)
        self.layouts: dict[tuple, tuple[tuple[Token, ...], tuple[str, ...], tuple, tuple]] = {}
        self.features: dict[tuple, tuple[tuple[Token, ...], tuple[str, ...]]] = {}
        self.feature_maps: dict[tuple, dict[str, FeatureChoice]] = {}
        self.kept: dict[tuple[str, ...], tuple[tuple[int, ...] | None, tuple[str, ...]]] = {}
        self.variants: dict[str, tuple] = {}
        self.images: dict[tuple[str, str], tuple[str | None, Span | None]] = {}

    def compose(self, s: _Selection) -> tuple[list[Token], list[EnvVar], tuple, tuple]:
        """(deduplicated tokens, env, their texts, env (name, value) pairs) of a selection."""
        pool = s.pool
        key = (s.variant, s.hw.id, s.strategy, s.nodes, s.rank,
               None if pool is None else (pool.role, pool.nodes, pool.mode, pool.raw_mode))
        part = self.layouts.get(key)
        if part is None:
            tokens, env = self.parts.part(s.variant, s.hw, s.strategy, s.nodes, s.rank, pool)
            kept = _non_empty(tokens)
            part = self.layouts[key] = (
                tuple(kept), tuple([t.text for t in kept]), tuple([EnvVar(*e) for e in env]),
                tuple({name: value for name, value, _, _ in env}.items()))
        fkey = (s.strategy, s.hw.id, s.features)
        feats = self.features.get(fkey)
        if feats is None:
            found = _non_empty(_feature_tokens(self.recipe, s))
            feats = self.features[fkey] = (tuple(found), tuple(t.text for t in found))
        texts = part[1] + feats[1]
        keep = self.kept.get(texts)
        if keep is None:  # renderings on other GPUs often repeat the same texts
            indexes = kept_indexes(texts)
            keep = self.kept[texts] = (
                None if len(indexes) == len(texts) else tuple(indexes),  # None: all kept
                tuple([texts[i] for i in indexes]))
        tokens = part[0] + feats[0]
        argv = list(tokens) if keep[0] is None else [tokens[i] for i in keep[0]]
        return argv, list(part[2]), keep[1], part[3]

    def feature_map(self, s: _Selection) -> dict[str, FeatureChoice]:
        key = s.features
        found = self.feature_maps.get(key)
        if found is None:
            found = self.feature_maps[key] = _feature_map(self.recipe, s)
        return dict(found)

    def variant(self, variant: str) -> tuple:
        """(argv head ``vllm serve <model>``, floor, floor span, anchor) of a variant."""
        found = self.variants.get(variant)
        if found is None:
            model = model_token(self.recipe, variant)
            found = self.variants[variant] = (
                [Token("vllm", model.span), Token("serve", model.span), model],
                *floor_for(self.recipe, variant), variant_anchor(self.recipe, variant))
        return found

    def image(self, variant: str, hw: HardwareProfile) -> tuple[str | None, Span | None]:
        found = self.images.get((variant, hw.id))
        if found is None:
            found = self.images[(variant, hw.id)] = image_for(self.recipe, variant, hw)
        return found


def _non_empty(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.text != ""]  # dedupe drops empty tokens


def _render_one(recipe: Recipe, s: _Selection, memo: _Memo | None = None) -> Rendering:
    return _render_keyed(recipe, s, memo or _Memo(recipe))[0]


def _render_keyed(recipe: Recipe, s: _Selection, memo: _Memo) -> tuple[Rendering, tuple]:
    """A rendering and what tells it apart from the recipe's others: the texts of its
    tokens after the (per-variant) head and its env (name, value) pairs."""
    tokens, env, texts, env_pairs = memo.compose(s)
    head, floor, floor_span, anchor = memo.variant(s.variant)
    image, image_span = memo.image(s.variant, s.hw)
    pool_nodes = s.pool.nodes if s.pool is not None else s.nodes
    rendering = Rendering(  # positional (field order): one is built per launch
        recipe.hf_id, recipe.path, s.variant, s.hw.id, s.strategy, memo.feature_map(s),
        _label(s), head + tokens, env, image, image_span, floor, floor_span, anchor, "vllm",
        s.rank if pool_nodes > 1 else None, max(1, pool_nodes), None,
        s.pool.role if s.pool is not None else None,
    )
    return rendering, (texts, env_pairs)


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


def _layouts(
    recipe: Recipe, variant: str, hw: HardwareProfile, strategy: str
) -> list[tuple[int, int, Pool | None]]:
    """(nodes, rank, PD pool) of the commands a strategy renders on a GPU, sized as the JSON API
    sizes them: multi-node at max(2, floor) nodes, PD pools from the variant's VRAM."""
    if sel.deploy_type(recipe, strategy) == "pd_cluster":
        pools = par.pd_pools(recipe, variant, hw) or []
        return [(1, rank, pool) for pool in pools for rank in _ranks(pool.nodes)]
    nodes = sel.node_count(recipe, strategy, hw)
    return [(nodes, rank, None) for rank in _ranks(nodes)]


def _ranks(nodes: int) -> range:
    # The head and the first follower: later followers differ only in rank numbers.
    return range(min(max(1, nodes), 2))


def _near(value: str, choices: Iterable[str]) -> str:
    """A did-you-mean for a name typed by the user, or the names there are."""
    names = sorted(choices)
    return did_you_mean(value, names, cutoff=0.6) or f"; known: {', '.join(names)}"


def _strategy_problem(recipe: Recipe, strategy: str) -> str | None:
    if strategy not in recipe.repo.strategies:
        return f"unknown strategy {strategy!r}{_near(strategy, recipe.repo.strategies)}"
    kind = sel.deploy_type(recipe, strategy)
    if kind not in ("single_node", "multi_node", "pd_cluster"):
        return f"strategy {strategy!r} ({kind}) is not rendered by servelint yet"
    return None


def _selection_problem(
    recipe: Recipe,
    hardware: str | None,
    strategy: str | None,
    variant: str | None,
    features: Mapping[str, FeatureChoice] | None,
) -> ReadProblem | None:
    """Why the asked-for variant, hardware, strategy or feature set cannot be rendered."""
    if variant is not None and variant not in sel.variant_keys(recipe):
        why = f"unknown variant {variant!r}{_near(variant, sel.variant_keys(recipe))}"
        return ReadProblem(recipe.path, None, why, "unresolved")
    if hardware is not None and hardware not in recipe.repo.hardware:
        why = f"unknown hardware {hardware!r}{_near(hardware, recipe.repo.hardware)}"
        return ReadProblem(recipe.path, None, why, "unresolved")
    if strategy is not None and (why := _strategy_problem(recipe, strategy)):
        kind = "unresolved" if strategy not in recipe.repo.strategies else "unsupported"
        return ReadProblem(recipe.path, None, why, kind)
    known = set(sel.feature_keys(recipe)) if features else set()
    for name, choice in (features or {}).items():
        why = _feature_problem(recipe, known, name, choice)
        if why:
            return ReadProblem(recipe.path, None, why, "unresolved")
    return None


def _feature_problem(recipe: Recipe, known: set[str], name: str, choice: FeatureChoice,
                     ) -> str | None:
    if name not in known:
        return f"unknown feature {name!r}"
    if isinstance(choice, str):
        modes = recipe.node("features", name, "modes")
        if not isinstance(modes, Map) or choice not in modes:
            return f"feature {name!r} has no mode {choice!r}"
    return None


def _hardware_of(recipe: Recipe, v: str, hardware: str | None) -> list[Any]:
    if hardware is not None:
        return [recipe.repo.hardware[hardware]]
    return [hw for hw in sel.offered_hardware(recipe, v) if sel.effective_variant(recipe, v, hw) == v]


def _strategies_of(recipe: Recipe, hw: Any, strategy: str | None) -> list[str]:
    if strategy is not None:
        return [strategy]
    return [s for s in sel.strategies_for(recipe, hw) if _strategy_problem(recipe, s) is None]


def render_recipe(
    recipe: Recipe,
    *,
    hardware: str | None = None,
    strategy: str | None = None,
    variant: str | None = None,
    features: Mapping[str, FeatureChoice] | None = None,
) -> RenderResult:
    result = RenderResult()
    problem = _selection_problem(recipe, hardware, strategy, variant, features)
    if problem is not None:
        result.problems.append(problem)
        return result
    if recipe.is_omni:
        render_omni(recipe, result, hardware=hardware, variant=variant)
        return result
    seen: set[tuple] = set()
    memo = _Memo(recipe)
    for v in [variant] if variant is not None else sel.variant_keys(recipe):
        for hw in _hardware_of(recipe, v, hardware):
            variations = (
                [dict(features)] if features is not None else _feature_variations(recipe, v, hw)
            )
            enabled_sets = [tuple(_enabled(recipe, v, hw, choices)) for choices in variations]
            for strat in _strategies_of(recipe, hw, strategy):
                layouts = _layouts(recipe, v, hw, strat)
                for choices, enabled in zip(variations, enabled_sets, strict=True):
                    for nodes, rank, pool in layouts:
                        s = _Selection(v, hw, strat, enabled, choices, nodes, rank, pool)
                        rendering, (texts, env_pairs) = _render_keyed(recipe, s, memo)
                        # the argv head is the variant's, so texts after it suffice
                        key = (v, hw.id, strat, rank, pool, texts, env_pairs)
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
    doc: YamlDoc | None = None,
) -> RenderResult:
    """Every launch the site renders for a recipe file (or only the selected ones).

    ``features=None`` enumerates the default feature set plus each opt-in feature and each
    mode switched on one at a time; a mapping (``{}`` = defaults) renders exactly that set:
    ``True`` switches a feature on, a string picks its mode, ``False`` switches it off.
    ``doc``: the file, when the caller has already composed it.
    """
    recipe, problems = load_recipe(recipe_path, doc)
    if recipe is None:
        return RenderResult([], problems)
    result = render_recipe(
        recipe, hardware=hardware, strategy=strategy, variant=variant, features=features
    )
    result.problems[:0] = problems
    return result
