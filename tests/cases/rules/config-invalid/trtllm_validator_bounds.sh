# servelint-test: engine=trtllm==1.3.0rc3
# numbers the release's validators refuse (bounds read from llm_args.py), and good ones
cat > extra.yml << EOF2
stream_interval: 0
batch_wait_max_tokens_ratio: 0.5
cuda_graph_config:
    max_batch_size: '-1'
kv_cache_config:
    free_gpu_memory_fraction: 1.5
    max_util_for_resume: 1
EOF2
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options extra.yml
