# servelint-test: engine=vllm==0.21.0
# late_values.reasoning_parser.guarded (builder/guarded_lookups.py): ReasoningConfig.
# initialize_token_ids looks reasoning_parser up unless both reasoning strings are set
# (vllm/config/reasoning.py:77); its default "" is not registered. The second launch sets
# both strings, the third sets the field through --reasoning-parser
# (EngineArgs._set_default_reasoning_config_args): neither is a finding.
vllm serve Qwen/Qwen3-8B --reasoning-config '{}'
vllm serve Qwen/Qwen3-8B --reasoning-config '{"reasoning_start_str": "<t>", "reasoning_end_str": "</t>"}'
vllm serve Qwen/Qwen3-8B --reasoning-parser qwen3 --reasoning-config '{}'
