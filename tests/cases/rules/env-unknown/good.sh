# servelint-test: engine=vllm==0.21.0
export VLLM_ENGINE_READY_TIMEOUT_S=3600
MY_OWN_VAR=1 vllm serve Qwen/Qwen3-8B
