# servelint-test: engine=vllm==0.33.0
# --limit-mm-per-prompt fills MultiModalConfig.limit_per_prompt, built only for multimodal
# models, but create_model_config passes it to ModelConfig(limit_mm_per_prompt=...) first
# (vllm/engine/arg_utils.py:2028), an InitVar[dict[str, int | dict[str, int]] | None]
# (vllm/config/model.py:433) that pydantic validates for every model: a list is no dict
vllm serve m --limit-mm-per-prompt '[]'
vllm serve m --limit-mm-per-prompt '{"image": 2, "video": {"count": 1}}'
