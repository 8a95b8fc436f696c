# servelint-test: engine=vllm==0.21.0 ignores=on
# Fact (vllm 0.21.0 profile): no option --our-fork-flag, so the comment suppresses SL101.
# servelint: ignore[flag-unknown] flag added in our fork
vllm serve Qwen/Qwen3-8B --our-fork-flag 8192
