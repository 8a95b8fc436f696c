# servelint-test: engine=vllm==0.33.0
# profile facts: conditions.KVTransferConfig (vllm/config/kv_transfer.py:121) and ProfilerConfig (vllm/config/profiler.py:236)
vllm serve Qwen/Qwen3-8B --kv-transfer-config '{"kv_connector": "NixlConnector"}' \
  --profiler-config.torch_profiler_dir /tmp/trace
