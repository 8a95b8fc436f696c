# servelint-test: engine=vllm==0.21.0
# Fact (vllm 0.21.0 profile, argparse allow_abbrev): "--max-model" and "--gpu-mem" are
# accepted only as prefixes of --max-model-len and --gpu-memory-utilization.
vllm serve Qwen/Qwen3-8B \
    --max-model-len=4096 \
    "--gpu-memory-utilization" 0.9 \
    --port 8000  # the port the proxy expects
