"""Recipe reader: repository discovery, bundled fallback, positions and malformed input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from servelint.sources.common.yamlpos import Map
from servelint.sources.recipe.load import BUNDLED_ROOT, find_repo_root, load_recipe, load_repo
from servelint.sources.recipe.render import render

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
RECIPES = CORPUS / "vllm-recipes"
SEED = CORPUS / "seeds" / "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
CASES = Path(__file__).parent / "cases" / "recipes"

needs_corpus = pytest.mark.skipif(not SEED.is_file(), reason="shared corpus absent")


@needs_corpus
def test_seed_env_carries_the_position_of_its_key():
    result = render(SEED, variant="bf16", hardware="h100", strategy="single_node_tep", features={})
    (r,) = result.renderings
    (env,) = r.env
    assert env.name == "VLLM_USE_FASTOKENS" and env.value == "1"
    assert (env.span.path, env.span.line, env.span.column) == (str(SEED), 143, 7)
    assert (env.span.end_line, env.span.end_column) == (143, 25)


@needs_corpus
def test_seed_outside_a_checkout_uses_the_bundled_taxonomy():
    assert find_repo_root(SEED) is None
    recipe, problems = load_recipe(SEED)
    assert problems == [] and recipe is not None
    assert recipe.repo.bundled and recipe.repo.root == BUNDLED_ROOT
    assert recipe.hf_id == "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"
    assert recipe.repo.hardware["h100"].per_gpu_gb == 80
    assert set(recipe.repo.strategies) >= {
        "single_node_tp",
        "pd_cluster",
        "kv_store_distributed_mooncake",
    }


@needs_corpus
def test_bundled_data_is_a_copy_of_the_corpus():
    for rel in [
        "taxonomy.yaml",
        "strategies/single_node_tp.yaml",
        "kv_store/kv_store_centralized_mooncake.yaml",
    ]:
        assert (BUNDLED_ROOT / rel).read_bytes() == (RECIPES / rel).read_bytes()


@needs_corpus
def test_recipe_inside_a_checkout_uses_that_checkout_once(tmp_path):
    path = RECIPES / "models" / "nvidia" / "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
    assert find_repo_root(path) == RECIPES.resolve()
    recipe, _ = load_recipe(path)
    assert recipe is not None and not recipe.repo.bundled
    assert recipe.hf_id == "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"
    assert load_repo(RECIPES) is recipe.repo  # cached per root
    # a checkout's own taxonomy wins over the bundled one
    root = tmp_path / "repo"
    (root / "models" / "o").mkdir(parents=True)
    shutil.copytree(RECIPES / "strategies", root / "strategies")
    (root / "taxonomy.yaml").write_text(
        "hardware_profiles:\n  tiny:\n    brand: NVIDIA\n    generation: hopper\n"
        "    gpu_count: 2\n    vram_gb: 20\nstrategies: [single_node_tp]\n"
    )
    shutil.copy(SEED, root / "models" / "o" / "m.yaml")
    result = render(root / "models" / "o" / "m.yaml", variant="bf16", features={})
    assert [(r.hardware, r.strategy) for r in result.renderings] == [
        ("tiny", "single_node_tp"),
        ("tiny", "single_node_tep"),
    ]
    assert "--tensor-parallel-size" in result.renderings[0].argv_text
    assert (
        result.renderings[0].argv_text[
            result.renderings[0].argv_text.index("--tensor-parallel-size") + 1
        ]
        == "2"
    )


def test_recipe_root_node_and_omni_flag():
    recipe, problems = load_recipe(CASES / "layered.yaml")
    assert problems == [] and recipe is not None and isinstance(recipe.root, Map)
    assert not recipe.is_omni and recipe.hf_id == "org/layered"
    assert recipe.node("variants", "big", "tp", "gb200").value == 2


@pytest.mark.parametrize(
    ("name", "kind", "line"),
    [
        # a recipe that cannot be read at all is a read error (exit 1), whatever stopped it
        ("bad_syntax", "read-error", 2),
        ("not_a_map", "read-error", 1),
        ("empty", "read-error", None),
        ("non_utf8", "read-error", 2),
        ("alias_bomb", "read-error", 6),
        ("recursive_alias", "read-error", 1),
    ],
)
def test_malformed_recipe_is_a_problem(name, kind, line):
    recipe, problems = load_recipe(CASES / f"{name}.yaml")
    assert recipe is None
    assert problems[0].kind == kind
    assert (problems[0].span.line if problems[0].span else None) == line


def test_wrong_types_are_reported_at_their_key():
    recipe, problems = load_recipe(CASES / "wrong_types.yaml")
    assert recipe is not None
    assert [(p.message, p.span.line) for p in problems] == [
        ("'model.base_args' should be a list", 3),
        ("'model.base_env' should be a mapping", 4),
        ("'variants' should be a mapping", 5),
    ]
    result = render(CASES / "wrong_types.yaml")
    assert result.renderings == [] and len(result.problems) == 3


def test_duplicate_key_still_renders_with_a_problem():
    result = render(
        CASES / "duplicate_keys.yaml", hardware="h100", strategy="single_node_tp", features={}
    )
    assert result.renderings[0].argv_text[2] == "org/dup2"
    assert result.problems[0].message == "duplicated mapping key 'model_id'"


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ({"variant": "nope"}, "unknown variant 'nope'"),
        ({"hardware": "a100"}, "unknown hardware 'a100'"),
        ({"strategy": "warp"}, "unknown strategy 'warp'"),
        ({"strategy": "kv_store_distributed_mooncake"}, "is not rendered by servelint yet"),
        ({"features": {"nope": True}}, "unknown feature 'nope'"),
        ({"features": {"spec": "warp"}}, "feature 'spec' has no mode 'warp'"),
        ({"features": {"reasoning": "fast"}}, "feature 'reasoning' has no mode 'fast'"),
    ],
)
def test_unusable_selectors_are_problems(selector, message):
    result = render(CASES / "layered.yaml", **selector)
    assert result.renderings == []
    assert message in result.problems[0].message


def _paths(data, prefix=(), depth=3):
    if depth == 0:
        return
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else []
    )
    for key, value in items:
        yield (*prefix, key)
        yield from _paths(value, (*prefix, key), depth - 1)


def test_odd_shapes_anywhere_never_raise(tmp_path):
    import copy
    import json

    import yaml

    base = yaml.safe_load((CASES / "layered.yaml").read_text())
    target = tmp_path / "odd.yaml"
    count = 0
    for path in _paths(base):
        for i, odd in enumerate((None, 7, "x", [], {"k": [1, None]})):
            data = copy.deepcopy(base)
            node = data
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = odd
            target.write_text(json.dumps(data, default=str))  # JSON is YAML, faster to write
            selector = (
                {"variant": "default", "hardware": "h100", "strategy": "single_node_tep"},
                {"variant": "big", "hardware": "gb200", "strategy": "pd_cluster"},
            )[i % 2]
            result = render(target, features={}, **selector)  # must not raise
            assert result.renderings or result.problems
            count += 1
    assert count > 300


def test_bundled_strategies_composed_on_use_equal_every_file_composed():
    """The bundled copy composes a strategy when a recipe asks for it: exact only while each
    bundled file is named by its stem and reads without a problem, which this proves."""
    from servelint.sources.common.yamlpos import to_python
    from servelint.sources.recipe.load import BundledStrategies, strategy_files

    files = sorted((BUNDLED_ROOT / "strategies").glob("*.yaml"))
    files += sorted((BUNDLED_ROOT / "kv_store").glob("*.yaml"))
    problems: list = []
    every = strategy_files(files, problems)
    lazy = BundledStrategies(files)
    assert problems == []
    assert list(lazy) == list(every) == [f.stem for f in files]
    assert "pd_cluster" in lazy and "no_such_strategy" not in lazy
    assert lazy.get("no_such_strategy") is None
    for name, node in every.items():
        assert to_python(lazy[name]) == to_python(node)
        assert lazy[name].span == node.span
    repo = load_repo(None)
    assert isinstance(repo.strategies, BundledStrategies) and repo.problems == []
    assert len(repo.files) == 3 + len(files)  # taxonomy, two folder listings, every file


def test_a_models_folder_of_another_project_holds_no_recipe() -> None:
    """sgl-cookbook keeps its own model tables under data/models/: top-level keys and neither
    a recipe's ``model:`` nor its ``variants:``; a recipes checkout's YAML is claimed."""
    from servelint.sources.base import Head
    from servelint.sources.recipe import RecipeReader

    cases = Path(__file__).parent / "cases"
    tables = cases / "recipe_claims/data/models/src/v0.5.10/gemma4.yaml"
    assert not RecipeReader().claims(tables, Head(tables))
    recipe = cases / "rules/guide-drift/variations_qwen3_6_27b.yaml"
    moved = Path("/nonexistent/models/org") / recipe.name  # its folder is what is asked
    head = Head(recipe)
    assert RecipeReader().claims(moved, head)
