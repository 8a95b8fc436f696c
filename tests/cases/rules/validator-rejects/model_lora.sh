# servelint-test: engine=vllm==0.21.0
# profile fact: conditions.EngineArgs.model_checks, `not model_config.is_multimodal_model and self.default_mm_loras` (vllm/engine/arg_utils.py:1987): refused for text-only models
vllm serve Qwen/Qwen3-8B --enable-lora --default-mm-loras '{"audio": "/loras/speech"}'
