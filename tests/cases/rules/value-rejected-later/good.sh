# servelint-test: engine=vllm==0.21.0
vllm serve deepseek-ai/DeepSeek-R1 --tokenizer-mode fastokens \
  --attention-backend TOKENSPEED_MLA \
  --attention-config.mla_prefill_backend TOKENSPEED_MLA
