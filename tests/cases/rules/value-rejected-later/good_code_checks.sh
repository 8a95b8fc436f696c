# servelint-test: engine=vllm==0.33.0
# registered names, the name the lookup's caller resolves first ("auto", config.py:889) and
# a class path, which Executor.get_class imports (not judged)
vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3 --config-format auto \
  --distributed-executor-backend my_pkg.executors.MyExecutor
