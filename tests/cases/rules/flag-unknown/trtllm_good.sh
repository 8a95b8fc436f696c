# servelint-test: engine=trtllm==1.3.0rc3
trtllm-serve Qwen/Qwen3-8B --max_batch_size 8 --tp_size 2 --kv_cache_free_gpu_memory_fraction 0.8 --trust_remote_code
