# servelint-test: engine=vllm==0.21.0
# underscores before the first '.' are dashes to vLLM: both spellings are the same flag
vllm serve Qwen/Qwen3-8B --max_model_len 4096 --attention_config.backend FLASH_ATTN
