# servelint-test: engine=vllm==0.33.0
# sets read from membership checks in vllm 0.33.0's code (builder/value_checks.py):
# CacheConfig._validate_cache_dtype (vllm/config/cache.py:470, KV_CACHE_DTYPES :73; platform
# plugins register more at :114: a warning), get_config_parser (transformers_utils/config.py:540)
# and Executor.get_class (v1/executor/abstract.py:64, run by VllmConfig.__post_init__)
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp9 --config-format yaml \
  --distributed-executor-backend multiproc
