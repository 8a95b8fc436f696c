# servelint-test: engine=vllm==0.33.0
# VllmConfig.optimization_level is an IntEnum (vllm/config/vllm.py:435): "none" is no number;
# ModelConfig.hf_overrides is dict | Callable (model.py:348): a text that is not an object
# stays a string; served_model_name is str | list[str] | None (model.py:329): "" becomes None
# in the list; KernelConfig.moe_backend's before-validator lower-cases and turns - into _
# (kernel.py:399), then the Literal refuses " triton"
vllm serve Qwen/Qwen3-8B --optimization-level none --hf-overrides model_type \
  --served-model-name "" --kernel-config '{"moe_backend": " triton"}'
