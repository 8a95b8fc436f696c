# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --max-model-lenn 4096
