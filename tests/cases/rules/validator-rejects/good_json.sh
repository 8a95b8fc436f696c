# servelint-test: engine=vllm==0.33.0
# the same facts as bad_json.sh, with the keys they ask for
vllm serve Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}' \
  --profiler-config.profiler torch --profiler-config.torch_profiler_dir /tmp/trace
