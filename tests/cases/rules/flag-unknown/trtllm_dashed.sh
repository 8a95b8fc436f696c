# servelint-test: engine=trtllm==1.3.0rc3
# click matches option strings exactly: the dashed spelling of --max_batch_size is unknown
trtllm-serve Qwen/Qwen3-8B --max-batch-size 8 --tp_size 2 --kv-cache-free-gpu-memory-fraction 0.8
