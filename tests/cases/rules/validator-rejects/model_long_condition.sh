# servelint-test: engine=vllm==0.33.0
# profile fact: conditions.VllmConfig.model_checks, the Engram check (vllm/config/engram.py:80): its
# model condition inlines a helper to hundreds of characters, so the finding names its source line
vllm serve deepseek-ai/DeepSeek-V4.1 --engram-config.cpu_offload false
