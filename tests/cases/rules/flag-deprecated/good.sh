# servelint-test: engine=vllm==0.12.0
# Fact: the replacement the 0.12.0 profile names, --cudagraph-capture-sizes, is not deprecated.
vllm serve Qwen/Qwen3-8B --cudagraph-capture-sizes 8 16
