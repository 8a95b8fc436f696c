# servelint-test: image=vllm/vllm-openai:v0.27.1
ARGS=(
  --max-model-len 4096 \ 
  --enforce-eager
)
vllm serve Qwen/Qwen3-8B "${ARGS[@]}" \ 
  --max-num-seqs 64
vllm serve Qwen/Qwen3-8B
  --gpu-memory-utilization 0.9
