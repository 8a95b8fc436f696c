# servelint-test: engine=vllm==0.21.0
# No engine fact: a launcher that is not UTF-8 (byte 0xff below) cannot be read.
vllm serve Qwen/Qwen3-8B --served-model-name cafÿ
