# servelint-test: engine=vllm==0.11.0
# profile fact: conditions.EngineArgs from EngineArgs._is_v1_supported_oracle (vllm/engine/
# arg_utils.py:1456, :1469): V1 lacks these features and the fallback to V0 fails the launch,
# since vllm/entrypoints/openai/api_server.py:209 asserts envs.VLLM_USE_V1 (no V0 in 0.11.0);
# VLLM_USE_V1=0 does not help: try_v1 is False (arg_utils.py:1150) and the same assert fails.
# The first launch is a public SciCode serve script's (search index id 28284774971; its
# repository is not named by the index), written for a release that still had V0.
export VLLM_USE_V1=0

vllm serve Qwen/Qwen2.5-32B-Instruct \
    --dtype auto \
    --tensor-parallel-size 4 \
    --gpu-memory-utilization 0.7 \
    --trust-remote-code \
    --logits-processor-pattern scicode.utils.min_entropy.AdaptiveTemperatureProcessor \
    --rope-scaling '{"factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn"}' \
    --api-key token-abc123

vllm serve Qwen/Qwen3-8B --max-num-partial-prefills 4 --max-long-partial-prefills 2
# the defaults (1) are no fallback: no error
vllm serve Qwen/Qwen3-8B --max-num-partial-prefills 1 --max-long-partial-prefills 1
