# servelint-test: engine=vllm==0.21.0 ignores=on
# No engine fact: flag-unknown and SL101 are registered ids.
# servelint: ignore[flag-unknown, SL101] flag added in our fork
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
