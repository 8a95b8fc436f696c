# servelint-test: image=vllm/vllm-openai:nightly-dev-20261120-abcdef0
vllm serve Qwen/Qwen3-8B --max-model-lenx 4096
