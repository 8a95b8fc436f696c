# servelint-test: engine=vllm==0.21.0 unsafe=on
# Fact (vllm history): --disable-log-requests was deprecated ("[DEPRECATED] Disable logging
# requests.", 0.10.1.1) and is gone from the 0.21.0 parser. Dropping it is unsafe.
vllm serve Qwen/Qwen3-8B \
  --max-model-len 8192
echo started
