# servelint-test: engine=vllm==0.21.0
export VLLM_USE_FASTOKENS=1
export VLLM_USE_V1=1
VLLM_NOT_A_REAL_KNOB=1 vllm serve Qwen/Qwen3-8B
