# servelint-test: engine=vllm==0.27.1
# profile fact: conditions.VllmConfig (vllm/distributed/kv_transfer/kv_connector/factory.py:101,
# reached from vllm/config/vllm.py:1646 supports_hma_config): a KV transfer config without a
# connector; a warning, since model and platform config hooks run before it
vllm serve Qwen/Qwen3-8B --kv-transfer-config '{"kv_role": "kv_both"}'
