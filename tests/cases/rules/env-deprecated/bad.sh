# servelint-test: engine=vllm==0.23.0
# Fact (vllm 0.23.0 profile, env registry, vllm/envs.py:1474): VLLM_USE_FLASHINFER_MOE_FP8 is
# "deprecated, will be removed in v0.23. Use --moe-backend (e.g. flashinfer_trtllm, ...)".
VLLM_USE_FLASHINFER_MOE_FP8=1 vllm serve Qwen/Qwen3-30B-A3B-FP8
