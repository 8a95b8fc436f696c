# servelint-test: engine=trtllm==1.3.0rc3
export TRTLLM_ENABLE_PDL=1
export TRTLLM_NOT_A_KNOB=1
trtllm-serve Qwen/Qwen3-8B
