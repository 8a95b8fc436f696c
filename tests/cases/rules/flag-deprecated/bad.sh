# servelint-test: engine=vllm==0.12.0
# Fact (vllm 0.12.0 profile, parser action --cuda-graph-sizes, field of CompilationConfig at
# vllm/config/compilation.py:547): deprecated=true, "Please use --cudagraph-capture-sizes".
vllm serve Qwen/Qwen3-8B --cuda-graph-sizes 8 16
