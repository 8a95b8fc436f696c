# servelint-test: engine=sglang==0.5.11
# Fact (sglang 0.5.11 profile, env registry, sglang/srt/environ.py:598): SGLANG_GC_LOG is a
# deprecated alias of SGLANG_LOG_GC (alias_of), "Use SGLANG_LOG_GC instead.".
SGLANG_GC_LOG=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B
