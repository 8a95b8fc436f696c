# servelint-test: engine=vllm==0.10.2
# the same options on a release that still has V0: the oracle falls back to it (the entrypoint
# asserts nothing about VLLM_USE_V1), so there is no check and no finding
vllm serve Qwen/Qwen3-8B --logits-processor-pattern 'my_pkg\..*'
vllm serve Qwen/Qwen3-8B --max-num-partial-prefills 4 --max-long-partial-prefills 2
