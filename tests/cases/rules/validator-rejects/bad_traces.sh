# servelint-test: engine=vllm==0.21.0
# profile fact: conditions.ObservabilityConfig (vllm/config/observability.py:149), built from --collect-detailed-traces
vllm serve Qwen/Qwen3-8B --collect-detailed-traces all
