# servelint-test: image=lmsysorg/sglang:nightly-dev-cu13-211ee642
# An undated nightly image is judged on the newest profiled release (sglang 0.5.23),
# whose profile marks --enable-dp-attention deprecated: the warning says it is a guess.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --enable-dp-attention
