# servelint-test: engine=vllm==0.12.0
vllm serve Qwen/Qwen3-8B --attention-backend FLASH_ATTN
