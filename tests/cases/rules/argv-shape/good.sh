# servelint-test: image=vllm/vllm-openai:v0.27.1
ARGS=(
  --max-model-len 4096
  --enforce-eager
)
vllm serve Qwen/Qwen3-8B "${ARGS[@]}" \
  --max-num-seqs 64
# an array literal opened with words on its first line spans lines without backslashes
start() {
  local cmd=(vllm serve Qwen/Qwen3-8B
    --max-model-len 4096
    "${ARGS[@]}")
  "${cmd[@]}"
}
start
