# servelint-test: image=vllm/vllm-openai:v0.27.1
export VLLM_USE_FASTOKENS=1
vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16
