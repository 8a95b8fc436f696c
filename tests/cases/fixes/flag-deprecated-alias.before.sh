# servelint-test: engine=sglang==0.5.13
# Fact (sglang 0.5.13 profile): --nsa-prefill-backend (sglang/srt/server_args.py:5744) is
# deprecated, "Use '--dsa-prefill-backend' instead."; both store dest dsa_prefill_backend
# with the same choices (server_args.py:5736), so the rename is safe.
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --nsa-prefill-backend flashmla_sparse
