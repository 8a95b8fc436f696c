# servelint-test: engine=vllm==0.21.0
# the opt-in lets the deprecated method through
vllm serve org/m-fp8 --quantization fbgemm_fp8 --allow-deprecated-quantization
