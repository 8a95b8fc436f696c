# servelint-test: engine=sglang==0.5.23
# SGLANG_KERNEL_API_LOGLEVEL is not in sglang/srt/environ.py's registry, but
# sglang/kernels/kernel_api_logging.py:55 reads it (profiles/data/sglang/env_reads.json.gz):
# known; the misspelt form is found
export SGLANG_KERNEL_API_LOGLEVEL=1
export SGLANG_KERNEL_API_LOGLEVL=1
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
