#!/usr/bin/env bash
cat > vllm.yaml <<EOF
tensor-parallel-size: $TP
enable-expert-parallel: true
enforce-eager: false
compilation-config:
  cudagraph_mode: FULL
max-model-len: 8192
EOF
vllm serve "$MODEL" --config vllm.yaml
