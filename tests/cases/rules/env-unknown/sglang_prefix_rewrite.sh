# servelint-test: engine=sglang==0.5.9
# sglang/srt/environ.py (0.5.9) rewrites a name starting with SGL_ to SGLANG_ (the profile's
# env.prefix_rewrite): SGL_CUDA_COREDUMP is read as the registered SGLANG_CUDA_COREDUMP;
# SGL_NOT_A_SETTING has no SGLANG_ twin and is reported
export SGL_CUDA_COREDUMP=1
export SGL_NOT_A_SETTING=1
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
