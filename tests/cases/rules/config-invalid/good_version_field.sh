# servelint-test: engine=vllm==0.33.0
# PEP 440 versions the same parse accepts
vllm serve Qwen/Qwen3-8B --show-hidden-metrics-for-version 0.7
vllm serve Qwen/Qwen3-8B --show-hidden-metrics-for-version v0.32.0
