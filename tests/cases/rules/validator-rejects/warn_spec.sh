# servelint-test: engine=vllm==0.33.0
# profile fact: conditions.SpeculativeConfig (vllm/config/speculative.py:1947): nothing sets
# num_speculative_tokens for ngram; a warning, since a speculators-format --model makes
# maybe_override_with_speculators (vllm/engine/arg_utils.py:2270) rewrite the dict
vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "ngram", "prompt_lookup_max": 4}'
