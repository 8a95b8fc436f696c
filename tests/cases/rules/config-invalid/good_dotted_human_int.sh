# servelint-test: engine=vllm==0.21.0
# 0.21.0 turns a dotted value that is not JSON into a human-readable int first
# (vllm/utils/argparse_utils.py:410): "1k" is 1000; pydantic reads "0_1" and " 2 " as ints;
# quantization is QuantizationMethods | str | None there (speculative.py:101): any text
vllm serve m --speculative-config.max_model_len 1k --speculative-config.prompt_lookup_max " 2 " \
  --speculative-config.prompt_lookup_min 0_1 --speculative-config.quantization AWQ
