# servelint-test: engine=vllm==0.21.0
# a shell variable may hold anything: nothing that reads it is judged
vllm serve Qwen/Qwen3-8B --numa-bind-nodes 0 $NUMA_FLAGS
vllm serve Qwen/Qwen3-8B --collect-detailed-traces all --otlp-traces-endpoint "$OTLP"
vllm serve Qwen/Qwen3-8B --kv-transfer-config "$KV_CONFIG"
# a --config file may set the option the combination needs
vllm serve Qwen/Qwen3-8B --numa-bind-nodes 0 --config serve.yaml
