# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B \
  --kv-cache-dtype fp9 \
  --tensor-parallel-size two
