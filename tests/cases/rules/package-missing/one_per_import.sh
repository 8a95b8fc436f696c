# servelint-test: engine=vllm==0.33.0
# VLLM_USE_MODELSCOPE=True imports modelscope (vllm/transformers_utils/__init__.py:6-26), which
# the wheel does not require: two gates of that one import (its version check at :14, the
# ImportError at :23) are one finding
pip install vllm==0.33.0
export VLLM_USE_MODELSCOPE=True
vllm serve Qwen/Qwen3-8B
