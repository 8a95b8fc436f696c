# servelint-test: engine=vllm==0.21.0
# the same fact as model_lora.sh: without default modality LoRAs the model check does not apply
vllm serve Qwen/Qwen2.5-Omni-7B --enable-lora --max-lora-rank 64
