"""The part of a recipe rendering that does not depend on the features (recipe-format.md 5.2-5.4
and the env steps): the tokens before the feature args, and the whole env.

Each piece is looked up once per recipe for the keys it depends on (the variant's tokens per
variant and GPU, the strategy's per strategy and PD role, the hardware blocks per all three),
so a layout only joins shared token tuples and adds its size flags. Tokens are never mutated.
"""

from __future__ import annotations

import servelint.sources.recipe.parallel as par
from servelint.model import EnvVar, Span, Token
from servelint.sources.common.yamlpos import Map, Node, at
from servelint.sources.recipe.load import HardwareProfile, Recipe
from servelint.sources.recipe.nodes import EnvMap, exact_block, gen_block, seq_tokens
from servelint.sources.recipe.parallel import Pool

Tokens = tuple[Token, ...]
Layers = tuple[Node | None, ...]  # env maps applied in order
# (name, value, span, symbolic) of each env var: each rendering gets its own EnvVar objects
EnvEntries = tuple[tuple[str, str, Span | None, bool], ...]


def _entries(env: list[EnvVar]) -> EnvEntries:
    return tuple((e.name, e.value, e.span, e.symbolic) for e in env)


def hw_blocks(
    recipe: Recipe, variant: str, hw: HardwareProfile, strategy: str, role: str | None
) -> list[Map]:
    """Step 5 / env steps 7-8: generation blocks (a strategy block replaces the recipe's and
    the variant's), then the strategy's exact-GPU block and, for PD, the role's."""
    so = recipe.node("strategy_overrides", strategy)
    so_ho = at(so, "hardware_overrides")
    so_gen = gen_block(so_ho, hw)
    if so_gen is not None:
        blocks = [so_gen]
    else:
        blocks = [
            gen_block(recipe.node("hardware_overrides"), hw),
            gen_block(recipe.node("variants", variant, "hardware_overrides"), hw),
        ]
    blocks.append(exact_block(so_ho, hw))
    if role is not None:
        blocks.append(exact_block(at(so, role, "hardware_overrides"), hw))
    return [b for b in blocks if b is not None]


class Layouts:
    """The feature-independent part of each rendering of one recipe."""

    def __init__(self, recipe: Recipe) -> None:
        self.recipe = recipe
        self._variants: dict[tuple[str, str], tuple[Tokens, Layers]] = {}
        self._strategies: dict[tuple[str, str | None], tuple[Tokens, Tokens, Layers]] = {}
        self._blocks: dict[tuple[str, str, str, str | None], tuple[Tokens, Layers]] = {}
        self._envs: dict[tuple[int, ...], EnvEntries] = {}
        self._sizes: dict[tuple, Tokens] = {}

    def part(
        self, variant: str, hw: HardwareProfile, strategy: str, nodes: int, rank: int,
        pool: Pool | None,
    ) -> tuple[list[Token], EnvEntries]:
        """Tokens before the feature args, and the whole env."""
        recipe = self.recipe
        role = pool.role if pool is not None else None
        head, v_env = self._variant(variant, hw)
        before, after, s_env = self._strategy(strategy, role)
        b_tokens, b_env = self._hw(variant, hw, strategy, role)
        tokens = list(head)
        tokens += before
        if pool is not None:
            tokens += par.pool_flags(recipe, variant, hw, pool, rank)
        else:
            tokens += par.size_flags(recipe, variant, strategy, hw, nodes, rank, self._sizes)
        tokens += after
        tokens += b_tokens

        if pool is None:
            return tokens, self._env(v_env + s_env + b_env)
        env = EnvMap()
        for layer in v_env:
            env.apply(layer)
        env.apply(s_env[0])
        par.pd_device_env(env, recipe, hw, pool)
        for layer in s_env[1:]:
            env.apply(layer)
        for layer in b_env:
            env.apply(layer)
        par.pd_env_finish(env, hw, pool, rank)
        return tokens, _entries(env.items())

    def _env(self, layers: Layers) -> EnvEntries:
        """The env of successive layers, once per distinct list of layer nodes (GPUs of one
        generation share their blocks; the nodes live as long as the recipe)."""
        key = tuple(map(id, layers))
        found = self._envs.get(key)
        if found is None:
            env = EnvMap()
            for layer in layers:
                env.apply(layer)
            found = self._envs[key] = _entries(env.items())
        return found

    def _variant(self, variant: str, hw: HardwareProfile) -> tuple[Tokens, Layers]:
        """``base_args`` and the variant's args (its exact-GPU block's too), and their env."""
        key = (variant, hw.id)
        found = self._variants.get(key)
        if found is None:
            recipe = self.recipe
            v = recipe.node("variants", variant)
            v_exact = exact_block(at(v, "hardware_overrides"), hw)
            tokens = (seq_tokens(recipe.node("model", "base_args")) + seq_tokens(at(v, "extra_args"))
                      + seq_tokens(at(v_exact, "extra_args")))
            env = (recipe.node("model", "base_env"), at(v, "extra_env"), at(v_exact, "extra_env"))
            found = self._variants[key] = (tokens, env)
        return found

    def _strategy(self, strategy: str, role: str | None) -> tuple[Tokens, Tokens, Layers]:
        """The strategy's tokens before and after the size flags, and its env layers (for PD:
        the role's strategy-file env first; the role's GPUs are set after it)."""
        key = (strategy, role)
        found = self._strategies.get(key)
        if found is None:
            so = self.recipe.node("strategy_overrides", strategy)
            sfile = self.recipe.repo.strategies[strategy]
            if role is not None:
                found = ((), seq_tokens(at(so, role, "extra_args"))
                         + seq_tokens(at(so, role, "vllm_args")),
                         (at(sfile, role, "env"), at(so, "env"), at(so, role, "env")))
            else:
                found = (seq_tokens(sfile.get("vllm_args")),
                         seq_tokens(at(so, "extra_args")) + seq_tokens(at(so, "vllm_args")),
                         (sfile.get("env"), at(so, "env"), at(so, "extra_env")))
            self._strategies[key] = found
        return found

    def _hw(
        self, variant: str, hw: HardwareProfile, strategy: str, role: str | None
    ) -> tuple[Tokens, Layers]:
        """Args and env layers of the hardware blocks."""
        key = (variant, hw.id, strategy, role)
        found = self._blocks.get(key)
        if found is None:
            blocks = hw_blocks(self.recipe, variant, hw, strategy, role)
            tokens: Tokens = ()
            for block in blocks:
                tokens += seq_tokens(block.get("extra_args"))
            found = self._blocks[key] = (tokens, tuple(b.get("extra_env") for b in blocks))
        return found
