# servelint-test: image=vllm/vllm-openai:nightly
vllm serve Qwen/Qwen3-8B
