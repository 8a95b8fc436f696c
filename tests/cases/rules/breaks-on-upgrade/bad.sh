# servelint-test: engine=vllm==0.21.0
vllm serve deepseek-ai/DeepSeek-R1 --tokenizer-mode fastokens
