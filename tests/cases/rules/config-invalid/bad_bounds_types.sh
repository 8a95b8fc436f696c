# servelint-test: engine=vllm==0.33.0
# Field(ge=1) of ParallelConfig.pipeline_parallel_size, Field(gt=0, le=1) of
# CacheConfig.gpu_memory_utilization, a number for a str field, a dict field given a list
vllm serve Qwen/Qwen3-8B \
  --pipeline-parallel-size 0 \
  --gpu-memory-utilization 1.5 \
  --ec-transfer-config '{"ec_connector": 1}' \
  --override-generation-config '[]'
