# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8 --tensor-parallel-size 2
