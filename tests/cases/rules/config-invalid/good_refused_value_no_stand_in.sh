# servelint-test: engine=vllm==0.21.0
# A value the parser refuses is value-invalid's (SL111) alone: the neutral value servelint
# parses on with (0) is not the launch's, so no "gpu_memory_utilization=0.0 is not greater
# than 0" from CacheConfig's bounds (vllm/config/cache.py) and no tensor_parallel_size=0.
vllm serve Qwen/Qwen3-8B --gpu-memory-utilization most --tensor-parallel-size two
