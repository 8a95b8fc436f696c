# servelint-test: engine=vllm==0.33.0
# "none" is mapped to "" by parse_reasoning_parser; "auto" means no backend for
# AttentionConfig.backend; the lambda type lower-cases and turns - into _
vllm serve Qwen/Qwen3-8B \
  --pipeline-parallel-size 2 \
  --gpu-memory-utilization 0.9 \
  --reasoning-parser none \
  --attention-config.backend auto \
  --moe-backend deep-gemm \
  --compilation-config.mode VLLM_COMPILE
