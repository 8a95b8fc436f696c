# servelint-test: image=vllm/vllm-openai:v0.27.1
vllm serve Qwen/Qwen3-8B
