# servelint-test: image=vllm/vllm-openai:nightly
# An undated nightly is newer than every release servelint knows: a name no release reads
# may be one the nightly's code adds (info only), while a name vLLM read up to 0.10.x and
# dropped (VLLM_USE_V1, last read by 0.11.0 per the env history) stays a warning.
export VLLM_SOME_NEW_KNOB=1
export VLLM_USE_V1=1
vllm serve Qwen/Qwen3-8B
