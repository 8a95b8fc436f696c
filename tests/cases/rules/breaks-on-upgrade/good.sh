# servelint-test: engine=vllm==0.33.0
vllm serve deepseek-ai/DeepSeek-R1 --tokenizer-mode auto
