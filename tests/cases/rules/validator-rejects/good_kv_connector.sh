# servelint-test: engine=vllm==0.27.1
# the connector is named, or KV offloading sets it (vllm/config/vllm.py:900-924)
vllm serve Qwen/Qwen3-8B --kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'
vllm serve Qwen/Qwen3-8B --kv-transfer-config '{"kv_role": "kv_both"}' --kv-offloading-size 4
