# servelint-test: engine=vllm==0.33.0
# profile fact: conditions.SpeculativeConfig (vllm/config/speculative.py:1293): a method that
# names no draft model of its own (eagle) with num_speculative_tokens and no model; the test
# reads `self.method in get_args(MTPModelTypes)` (:1246) as the Literal's values (:38), so a
# method outside them is not taken for one __post_init__ renames to mtp
vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "eagle", "num_speculative_tokens": 3}'
vllm serve Qwen/Qwen3-8B --spec-method eagle3 --spec-tokens 2
