# servelint-test: engine=vllm==0.27.1
export VLLM_KV_CACHE_LAYOUT=HND
export VLLM_MM_HASHER_ALGORITHM=SHA256
vllm serve Qwen/Qwen3-8B
