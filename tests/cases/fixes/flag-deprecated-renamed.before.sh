# servelint-test: engine=vllm==0.12.0 unsafe=on
# Fact (vllm 0.12.0 profile, vllm/config/compilation.py:547): --cuda-graph-sizes is deprecated,
# "Please use --cudagraph-capture-sizes instead."; a different dest, so the rename is unsafe.
vllm serve Qwen/Qwen3-8B --cuda-graph-sizes 8 16
