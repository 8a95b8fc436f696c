# servelint-test: engine=sglang==0.5.11
# Fact (sglang 0.5.11 profile): the parser has --tp-size, not --tp_size (SGLang does not turn
# underscores into dashes).
python -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --tp_size 2 \
  --port 30000
