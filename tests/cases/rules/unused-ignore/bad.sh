# servelint-test: engine=vllm==0.21.0 ignores=on
# Fact (vllm 0.21.0 profile): --max-model-len is a parser option, so flag-unknown finds
# nothing for the comment to suppress.
# servelint: ignore[flag-unknown] flag added in our fork
vllm serve Qwen/Qwen3-8B --max-model-len 8192
