# servelint-test: engine=vllm==0.21.0
pip install -q 'fastokens>=0.1.1,<0.2.0' datasets pandas
vllm serve deepseek-ai/DeepSeek-R1 --trust-remote-code
