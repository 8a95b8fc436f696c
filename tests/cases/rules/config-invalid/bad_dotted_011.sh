# servelint-test: engine=vllm==0.11.0
# 0.11.0's FlexibleArgumentParser keeps a dotted value that is not JSON as text (no human-
# readable ints yet); SpeculativeConfig is a pydantic dataclass (vllm/config/speculative.py:41):
# max_model_len: Optional[int] (speculative.py:74) refuses "1k" and "1.5", enforce_eager:
# Optional[bool] refuses "", and quantization: Optional[me_quant.QuantizationMethods]
# (speculative.py:70, me_quant a LazyLoader of vllm.model_executor.layers.quantization) is a
# Literal that matches strictly: "AWQ" is not "awq"
vllm serve m --speculative-config.max_model_len 1k --speculative-config.prompt_lookup_max 1.5 \
  --speculative-config.enforce_eager "" --speculative-config.quantization AWQ
vllm serve m --speculative-config '{"quantization": " awq", "model": 1}'
