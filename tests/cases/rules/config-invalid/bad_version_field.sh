# servelint-test: engine=vllm==0.33.0
# profile fact: version_fields.ObservabilityConfig.show_hidden_metrics_for_version (vllm/config/observability.py:150, packaging.version.parse)
vllm serve Qwen/Qwen3-8B --show-hidden-metrics-for-version none
