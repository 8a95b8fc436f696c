# servelint-test: engine=trtllm==1.3.0rc3
# Whole-model checks of TensorRT-LLM 1.3.0rc3's LLM API (tensorrt_llm/llmapi/llm_args.py):
# a decoding type the backend does not support (supports_backend), a field
# validate_speculative_config asserts on (NGram max_draft_len > 0; Eagle3's draft model),
# a required field missing (Field(...)), and null for an argument the merge converts.
cat > medusa.yml << EOF2
speculative_config:
  decoding_type: Medusa
  max_draft_len: 3
EOF2
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options medusa.yml
cat > ngram.yml << EOF2
speculative_config:
  decoding_type: NGram
  max_draft_len: 0
EOF2
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options ngram.yml
cat > eagle3.yml << EOF2
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 3
kv_connector_config:
  connector_module: my.connector
moe_config: null
EOF2
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options eagle3.yml
cat > good.yml << EOF2
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 3
  speculative_model: /models/eagle3
EOF2
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options good.yml
