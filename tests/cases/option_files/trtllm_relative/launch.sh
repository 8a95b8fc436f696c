#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
# After phatvo9/benchmark_gpu@7c7b97b tuning/tensorrt_llm/deepseek-r1/mtp/start_config1.sh:
# the option file is a file of the checkout, named relative to the launcher.
trtllm-serve nvidia/DeepSeek-R1-FP4 \
    --host 0.0.0.0 --port 26666 --backend pytorch \
    --tp_size 8 --ep_size 2 \
    --trust_remote_code \
    --kv_cache_free_gpu_memory_fraction 0.7 --extra_llm_api_options configs/trt_bench_mtp.yaml
