# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B \
  --attention-config.backend FLASH_ATTN \
  --speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
