"""The recipe renderer against the site's own renderings and the documented layering rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servelint.cli import main
from servelint.model import Token
from servelint.sources.recipe import select as sel
from servelint.sources.recipe.load import load_recipe
from servelint.sources.recipe.render import render, render_recipe, tensor_parallel_size
from servelint.sources.recipe.text import command_lines, dedupe, quote_value

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
RECIPES = CORPUS / "vllm-recipes"
GOLDEN = CORPUS / "recipes-golden.jsonl"
SEED = CORPUS / "seeds" / "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
CASES = Path(__file__).parent / "cases" / "recipes"
LAYERED = CASES / "layered.yaml"

needs_corpus = pytest.mark.skipif(not GOLDEN.is_file(), reason="shared corpus absent")


def _golden_source(row: dict) -> Path:
    # The site writes one file per model id. 20 rows carry the source of a recipe whose
    # variant promotes to an id that also has its own recipe file; the file written under
    # that id is the standalone recipe's rendering, so that is the recipe to render.
    own = RECIPES / "models" / f"{row['recipe']}.yaml"
    return own if own.is_file() else RECIPES / row["source"]


@needs_corpus
def test_every_golden_rendering_matches_the_site():
    rows = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    assert len(rows) == 4318
    recipes: dict[Path, object] = {}
    mismatches = []
    for row in rows:
        src = _golden_source(row)
        if src not in recipes:
            recipe, problems = load_recipe(src)
            assert recipe is not None, problems
            recipes[src] = recipe
        result = render_recipe(
            recipes[src],  # type: ignore[arg-type]
            hardware=row["hardware"],
            strategy=row["strategy"],
            variant=row["variant"],
            features={},
        )
        assert len(result.renderings) == 1, (row["file"], result.problems)
        got = result.renderings[0]
        if (got.argv_text, got.env_dict, got.image) != (
            row["argv"],
            row["env"],
            row["docker_image"],
        ):
            mismatches.append((row["file"], got.argv_text, row["argv"], got.env_dict, row["env"]))
    assert mismatches == [], f"{len(mismatches)} of {len(rows)} differ; first: {mismatches[:3]}"


@needs_corpus
def test_worked_example_bf16_h100_single_node_tp():
    result = render(SEED, variant="bf16", hardware="h100", strategy="single_node_tp", features={})
    assert result.problems == []
    (r,) = result.renderings
    assert r.label == "bf16 · h100 · single_node_tp"
    assert r.command_text() == (
        "export VLLM_USE_FASTOKENS=1\n\n"
        "vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16 \\\n"
        "  --mamba-backend flashinfer \\\n  --mamba-cache-mode align \\\n"
        "  --enable-prefix-caching \\\n  --max-num-batched-tokens 16384 \\\n"
        "  --moe-backend flashinfer_cutlass \\\n  --tensor-parallel-size 1 \\\n"
        "  --reasoning-parser nemotron_v3 \\\n  --enable-auto-tool-choice \\\n"
        "  --tool-call-parser qwen3_xml \\\n  --mamba-ssm-cache-dtype float16 \\\n"
        "  --enable-mamba-cache-stochastic-rounding \\\n  --mamba-cache-philox-rounds 5"
    )
    assert (r.image, r.floor) == ("vllm/vllm-openai:v0.27.1", "0.27.1")
    assert r.floor_span is not None and r.floor_span.line == 20
    assert r.image_span is not None and r.image_span.line == 21
    # every token carries a span; the size flag comes from the strategy file, its value
    # from the recipe's variant key (auto-fit)
    assert all(t.span is not None for t in r.argv)
    tp = r.argv_text.index("--tensor-parallel-size")
    assert r.argv[tp].span.path.endswith("strategies/single_node_tp.yaml")
    assert (r.argv[tp + 1].span.path, r.argv[tp + 1].span.line) == (str(SEED), 134)
    assert (r.argv[3].text, r.argv[3].span.line, r.argv[3].span.column) == (
        "--mamba-backend",
        27,
        7,
    )
    (env,) = r.env
    assert (env.name, env.value, env.span.line, env.span.column) == (
        "VLLM_USE_FASTOKENS",
        "1",
        143,
        7,
    )


@needs_corpus
def test_worked_example_variations():
    mtp = render(
        SEED,
        variant="bf16",
        hardware="h100",
        strategy="single_node_tp",
        features={"spec_decoding": True},
    ).renderings[0]
    assert mtp.features["spec_decoding"] == "mtp"  # dspark/dflash are default-variant only
    assert mtp.argv_text[-2:] == [
        "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":3}',
    ]
    assert (
        '--speculative-config \'{"method":"mtp","num_speculative_tokens":3}\'' in mtp.command_text()
    )
    bw = render(
        SEED,
        variant="bf16",
        hardware="b200",
        strategy="single_node_tp",
        features={"spec_decoding": "mtp"},
    ).renderings[0]
    assert '"moe_backend":"triton"' in bw.argv_text[-1]
    nvfp4 = (
        render(SEED, variant="default", hardware="h100", strategy="single_node_tp", features={})
        .renderings[0]
        .argv_text
    )
    assert nvfp4[2] == "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4"
    assert "marlin" not in nvfp4 and "16384" not in nvfp4
    i = nvfp4.index("--tensor-parallel-size")
    assert nvfp4[i + 2 : i + 6] == ["--quantization", "modelopt_fp4", "--moe-backend", "humming"]


@needs_corpus
def test_every_rendering_of_the_seed():
    result = render(SEED)
    assert result.problems == []
    labels = [r.label for r in result.renderings]
    assert len(labels) == len(set(labels)) == 108
    assert "bf16 · mi355x · single_node_tep + spec_decoding=mtp" in labels
    assert not any(
        r.variant == "default" and r.hardware.startswith("mi") for r in result.renderings
    )
    bf16 = [r for r in result.renderings if r.variant == "bf16"]
    assert all(r.env_dict == {"VLLM_USE_FASTOKENS": "1"} for r in bf16)
    spec = result.renderings[0].to_launch_spec()
    assert (spec.engine, spec.entrypoint, spec.origin, spec.gpu) == (
        "vllm",
        "vllm serve",
        "recipe",
        "h100",
    )
    assert spec.argv[0].text == "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4"
    assert spec.context["variant"] == "default" and spec.context["strategy"] == "single_node_tp"
    assert spec.floor == "0.27.1" and spec.image == "vllm/vllm-openai:v0.27.1"


def _one(**kw):
    result = render(LAYERED, features=kw.pop("features", {}), **kw)
    assert result.problems == []
    (r,) = result.renderings
    return r


def test_layering_dedupe_and_generation_blocks():
    r = _one(variant="default", hardware="h100", strategy="single_node_tp")
    assert r.argv_text[2:] == [
        "org/layered",
        "--trust-remote-code",
        "--tensor-parallel-size",
        "2",
        "--recipe-hopper",
        "--max-model-len",
        "2048",
        "--variant-hopper",
        "--reasoning-parser",
        "r1",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
    ]
    assert list(r.env_dict.items()) == [
        ("FIRST", "hopper"),
        ("SECOND", "variant"),
        ("THIRD", "variant"),
    ]
    assert r.env[0].span.line == 88  # hardware_overrides.hopper.extra_env.FIRST


def test_strategy_generation_block_replaces_recipe_and_variant_blocks():
    r = _one(variant="default", hardware="h100", strategy="single_node_tep")
    assert r.argv_text[3:] == [
        "--trust-remote-code",
        "--max-model-len",
        "8192",
        "--enable-expert-parallel",
        "--tensor-parallel-size",
        "8",
        "--tep-extra",
        "--tep-hopper",
        "--tep-h100",
        "--reasoning-parser",
        "r1",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
    ]
    assert list(r.env_dict.items())[0] == ("FIRST", "tep-h100")  # keeps its first position
    assert r.env_dict["TEP_ENV"] == "1"


def test_exact_gpu_variant_block_image_pin_and_hardware_opt_in():
    r = _one(variant="default", hardware="b200", strategy="single_node_tp")
    assert r.image == "vllm/vllm-openai:b200-pin" and r.image_span.line == 65
    # the exact-GPU --tensor-parallel-size 3 (step 2) loses to the strategy's flag (step 3)
    assert r.argv_text.count("--tensor-parallel-size") == 1 and "3" not in r.argv_text
    assert "--nvidia-fallback" in r.argv_text and "--tool-call-parser" not in r.argv_text
    on = _one(
        variant="default",
        hardware="b200",
        strategy="single_node_tp",
        features={"tool_calling": True},
    )
    assert on.argv_text[-2:] == ["--tool-call-parser", "blackwell_parser"]


@pytest.mark.parametrize(
    ("hardware", "tp"), [("gb200", 2), ("b200", 8), ("h100", 4), ("mi355x", 4)]
)
def test_variant_tp_map_is_keyed_exact_generation_brand_default_and_capped(hardware, tp):
    recipe, _ = load_recipe(LAYERED)
    assert recipe is not None
    assert tensor_parallel_size(recipe, "big", recipe.repo.hardware[hardware])[0] == tp


def test_tp_auto_fit_is_one_or_the_whole_node():
    recipe, _ = load_recipe(SEED if SEED.is_file() else LAYERED)
    assert recipe is not None
    if SEED.is_file():
        hw = recipe.repo.hardware
        assert tensor_parallel_size(recipe, "bf16", hw["h100"])[0] == 1  # 72 <= 80
        assert tensor_parallel_size(recipe, "bf16", hw["rtx_pro_5000"])[0] == 1  # 72 <= 72
        assert tensor_parallel_size(recipe, "bf16", hw["rtx_5090_2x"])[0] == 2  # 72 > 32


def test_image_precedence_brand_maps_and_cuda_maps():
    assert (
        _one(variant="big", hardware="h100", strategy="single_node_tp").image
        == "vllm/vllm-openai:big"
    )
    # a variant string image is NVIDIA-only: AMD falls through to the model's amd entry
    assert (
        _one(variant="big", hardware="mi355x", strategy="single_node_tp").image
        == "vllm/vllm-openai-rocm:v0.20.0"
    )
    assert (
        _one(variant="default", hardware="h200", strategy="single_node_tp").image
        == "vllm/vllm-openai:v0.20.0"
    )  # CUDA map resolves to cu130


def test_modes_gates_overrides_and_forced_default_modes():
    big = _one(variant="big", hardware="h100", strategy="single_node_tp")
    assert big.features["spec"] == "slow"  # default_modes turns an opt-in feature on
    assert big.argv_text[-1] == '{"method":"slow","gpu":"h100"}'  # exact-GPU mode override
    bw = _one(variant="big", hardware="b200", strategy="single_node_tp")
    assert "spec" not in bw.features and "--speculative-config" not in bw.argv_text
    dep = _one(variant="default", hardware="h200", strategy="single_node_dep")
    tp = _one(variant="default", hardware="h200", strategy="single_node_tp")
    assert "--dp-only-flag" in dep.argv_text and "--dp-only-flag" not in tp.argv_text


def test_floor_is_the_max_and_nightly_compares_as_zero():
    assert _one(variant="big", hardware="h100", strategy="single_node_tp").floor == "0.22.0"
    assert _one(variant="nightly", hardware="b200", strategy="single_node_tp").floor == "0.20.0"


def test_enumeration_offers_the_site_hardware_and_strategies():
    result = render(LAYERED)
    assert result.problems == []
    seen = {(r.variant, r.hardware) for r in result.renderings}
    assert ("default", "mi300x") not in seen  # unsupported in meta.hardware
    assert ("nightly", "h100") not in seen  # nvfp4 is Blackwell-only
    assert ("nightly", "dgx_spark_gb10") in seen  # restricted but listed
    assert ("nightly", "dgx_station_gb300") not in seen  # restricted, not listed
    # non-scalable workstation: the oversize variant gives way to the largest that fits,
    # and no multi-node strategy is offered there
    assert ("default", "rtx_pro_6000") in seen and ("big", "rtx_pro_6000") not in seen
    assert not any(
        r.hardware == "rtx_pro_6000" and r.strategy == "multi_node_tp" for r in result.renderings
    )
    recipe, _ = load_recipe(LAYERED)
    assert recipe is not None
    assert sel.effective_variant(recipe, "big", recipe.repo.hardware["rtx_pro_6000"]) == "default"
    heads = [r for r in result.renderings if r.strategy == "multi_node_tp" and r.node_rank == 1]
    assert heads and all("--headless" in r.argv_text for r in heads)
    assert len({r.label for r in result.renderings}) == len(result.renderings)


def test_pd_cluster_co_located_roles():
    result = render(LAYERED, variant="default", hardware="h100", strategy="pd_cluster", features={})
    prefill, decode = result.renderings
    assert (prefill.role, decode.role) == ("prefill", "decode")
    assert prefill.label == "default · h100 · pd_cluster · prefill"
    # role tokens from the strategy file come first at step 3, then a half-node TP pool
    i = prefill.argv_text.index("--port")
    assert prefill.argv_text[i : i + 2] == ["--port", "8001"]
    assert prefill.argv_text[i + 4 : i + 6] == ["--tensor-parallel-size", "4"]
    assert prefill.argv[i].span.path.endswith("strategies/pd_cluster.yaml")
    assert prefill.env_dict["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"
    assert decode.env_dict["CUDA_VISIBLE_DEVICES"] == "4,5,6,7"
    # NVL4-only variables of the strategy file are dropped off GB200/GB300
    assert "NCCL_CUMEM_ENABLE" not in prefill.env_dict
    assert prefill.to_launch_spec().context["role"] == "prefill"


@needs_corpus
def test_pd_cluster_dep_pools_and_nvl4_env():
    kimi = RECIPES / "models" / "moonshotai" / "Kimi-K2.5.yaml"
    result = render(kimi, variant="default", hardware="gb200", strategy="pd_cluster", features={})
    prefill, decode = result.renderings
    assert prefill.env_dict["NCCL_CUMEM_ENABLE"] == "1"  # kept on gb200
    i = decode.argv_text.index("--data-parallel-size")
    assert decode.argv_text[i : i + 11] == [
        "--data-parallel-size",
        "4",
        "--data-parallel-size-local",
        "4",
        "--data-parallel-start-rank",
        "0",
        "--data-parallel-address",
        "$DECODE_NODE_1",
        "--data-parallel-rpc-port",
        "$DECODE_DP_RPC_PORT",
        "--enable-expert-parallel",
    ]
    assert decode.argv[i + 7].symbolic


@needs_corpus
def test_multi_node_head_and_follower_flags():
    k3 = RECIPES / "models" / "moonshotai" / "Kimi-K3.yaml"
    head, follower = render(
        k3, variant="default", hardware="h200", strategy="multi_node_dep", features={}
    ).renderings
    assert (head.node_rank, follower.node_rank, head.nodes) == (0, 1, 2)
    assert "--data-parallel-start-rank" not in head.argv_text
    i = follower.argv_text.index("--data-parallel-start-rank")
    assert follower.argv_text[i + 1] == "8"
    (ifname,) = [e for e in head.env if e.name == "NCCL_SOCKET_IFNAME"]
    assert ifname.value == "$IFACE_NAME" and ifname.symbolic
    assert ifname.span.path.endswith("strategies/multi_node_dep.yaml")
    h100 = render(k3, variant="default", hardware="h100", strategy="multi_node_tp", features={})
    assert h100.renderings[0].nodes == 4  # strategy_min_gpus h100: 32 -> 4 nodes of 8
    assert "single_node_tp" not in {r.strategy for r in render(k3, hardware="h100").renderings}


def test_dedupe_is_last_wins_by_exact_token():
    toks = [Token(t) for t in ["--a", "1", "--b", "--a", "2", "pos", "--a=3", "", "--b", "x"]]
    assert [t.text for t in dedupe(toks)] == ["--a", "2", "pos", "--a=3", "--b", "x"]


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("fp8", "fp8"),
        ("$HEAD_IP", "$HEAD_IP"),
        ("a/b:c@d,e+f%g=h.i-j", "a/b:c@d,e+f%g=h.i-j"),
        ('{"a":1}', "'{\"a\":1}'"),
        ("it's", "'it'\\''s'"),
        ("$lower", "'$lower'"),
        ("$1A", "'$1A'"),
    ],
)
def test_quote_value(value, quoted):
    assert quote_value(value) == quoted


def test_command_text_without_flags_and_with_raw_space_token():
    assert command_lines("m", []) == "vllm serve m"
    assert (
        command_lines("m", [Token("--max-model-len auto")])
        == "vllm serve m \\\n  --max-model-len auto"
    )


@needs_corpus
def test_omni_recipes_render_as_vllm_omni():
    result = render(RECIPES / "models" / "Lightricks" / "LTX-2.5-Diffusers.yaml")
    assert result.renderings and all(r.engine == "vllm-omni" for r in result.renderings)
    first = result.renderings[0]
    assert first.argv_text[-3:] == ["--port", "8000", "--omni"]
    assert first.to_launch_spec().engine == "vllm-omni"


def test_malformed_recipes_give_problems_not_exceptions():
    for name in (
        "bad_syntax",
        "not_a_map",
        "empty",
        "wrong_types",
        "non_utf8",
        "alias_bomb",
        "recursive_alias",
    ):
        result = render(CASES / f"{name}.yaml")
        assert result.renderings == [] and result.problems, name


def test_cli_render_text_json_and_exit_codes(capsys):
    args = [
        str(LAYERED),
        "--variant",
        "default",
        "--hardware",
        "h100",
        "--strategy",
        "single_node_tp",
    ]
    assert main(["render", *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# default · h100 · single_node_tp\n# image: vllm/vllm-openai:v0.20.0")
    assert "export FIRST=hopper\n" in out and "vllm serve org/layered \\\n" in out
    assert main(["render", *args, "--feature", "spec=slow", "--format", "json"]) == 0
    (obj,) = json.loads(capsys.readouterr().out)
    assert obj["features"]["spec"] == "slow" and obj["floor"] == "0.20.0"
    assert obj["argv"][-1] == '{"method":"slow","gpu":"h100"}'
    assert set(obj) >= {
        "variant",
        "hardware",
        "strategy",
        "features",
        "argv",
        "env",
        "docker_image",
        "floor",
    }
    assert main(["render", str(LAYERED), "--variant", "nope"]) == 2
    assert "unknown variant" in capsys.readouterr().err
    assert main(["render", str(LAYERED), "--hardware", "a100"]) == 2
    assert main(["render", str(CASES / "bad_syntax.yaml")]) == 2
    assert main(["render", str(LAYERED), "--feature", "=x"]) == 2
