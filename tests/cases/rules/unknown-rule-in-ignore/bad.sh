# servelint-test: engine=vllm==0.21.0 ignores=on
# No engine fact: the rule ids come from servelint's registry ("flag-unkown" is none).
# servelint: ignore[flag-unkown] typo in the rule name
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
# servelint: ignore
vllm serve Qwen/Qwen3-8B
