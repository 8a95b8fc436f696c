# servelint-test: engine=vllm==0.33.0
# the same fields with values they take: a numeric text for the IntEnum, a JSON object,
# names, and a spelling the normalising validator maps into the Literal (kernel.py:399)
vllm serve Qwen/Qwen3-8B --optimization-level 3 --hf-overrides '{"a": 1}' \
  --served-model-name qwen --kernel-config '{"moe_backend": "Deep-GEMM"}'
