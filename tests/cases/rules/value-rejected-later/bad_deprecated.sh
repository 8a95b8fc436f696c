# servelint-test: engine=vllm==0.21.0
# fbgemm_fp8 is in 0.21.0's DEPRECATED_QUANTIZATION_METHODS: refused without the opt-in
vllm serve org/m-fp8 --quantization fbgemm_fp8
