# servelint-test: engine=vllm==0.33.0
# the methods __post_init__ gives a model itself (vllm/config/speculative.py:1251-1282: mtp and
# every MTPModelTypes name renamed to it at :1246, ngram, suffix) and a method with its draft
# model: no finding
vllm serve deepseek-ai/DeepSeek-V3 --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'
vllm serve deepseek-ai/DeepSeek-V3 --spec-method mtp --spec-tokens 1
vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "suffix", "num_speculative_tokens": 8}'
vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'
