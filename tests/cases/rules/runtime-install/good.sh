# servelint-test: engine=vllm==0.21.0
pip install -q datasets pandas
vllm serve deepseek-ai/DeepSeek-R1
