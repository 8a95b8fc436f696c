# servelint-test: engine=vllm==0.23.0
# Fact (vllm 0.23.0 profile): --moe-backend is the replacement the deprecation names.
vllm serve Qwen/Qwen3-30B-A3B-FP8 --moe-backend flashinfer_cutlass
