# servelint-test: engine=trtllm==1.3.0rc3
cat > extra.yml << EOF2
enable_attention_dp: $DP_ATTENTION
cuda_graph_config:
    enable_padding: true
    max_batch_size: 16
kv_cache_config:
    dtype: fp8
    free_gpu_memory_fraction: 0.8
moe_config:
    backend: TRTLLM
speculative_config:
    decoding_type: Eagle
    max_draft_len: 3
    speculative_model_dir: /models/eagle3
EOF2
trtllm-serve Qwen/Qwen3-8B --config extra.yml
