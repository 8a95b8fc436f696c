# servelint-test: engine=trtllm==1.3.0rc3
cat > extra.yml << EOF2
enable_attention_dp: yes
print_iter_log: on
stream_interval: $INTERVAL
max_num_tokens_typo: 8
enable_build_cache: true
build_config:
    max_batch_size: 8
kv_cache_config:
    dtype: 8
    free_gpu_memory_fraction: 0.8
    enable_block_reus: false
moe_config:
    backend: trtllm
speculative_config:
    decoding_type: MTP
    num_nextn_predict_layers: 3
    bogus: 1
EOF2
trtllm-serve Qwen/Qwen3-8B --backend pytorch --extra_llm_api_options extra.yml
