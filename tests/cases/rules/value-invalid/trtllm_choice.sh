# servelint-test: engine=trtllm==1.3.0rc3
# choices are case-sensitive; "trt" is an alias of tensorrt
trtllm-serve Qwen/Qwen3-8B --backend PyTorch --port 80.5
trtllm-serve Qwen/Qwen3-8B --backend trt --log_level info
