# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B \
  --attention-config.nope_backend FLASH_ATTN \
  --speculative-config '{"method": "ngram", "bogus_key": 1}'
