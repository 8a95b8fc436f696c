# servelint-test: engine=sglang==0.5.11
# Fact (sglang 0.5.11 profile, sglang/srt/environ.py:598): SGLANG_GC_LOG is read as a
# deprecated alias of SGLANG_LOG_GC (alias_of), so the rename keeps what runs.
export SGLANG_GC_LOG=1  # log GC pauses
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
