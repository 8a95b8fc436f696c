# servelint-test: engine=vllm==0.22.0
vllm serve Qwen/Qwen3-8B --tokenizer-mode fastokens
