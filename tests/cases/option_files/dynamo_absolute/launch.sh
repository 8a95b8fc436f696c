#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
# After ai-dynamo/dynamo@15bb523 examples/backends/trtllm/launch/agg.sh, with the engine
# arguments' path written out: /workspace is the checkout (or a folder of it) inside the
# container, so the file is this folder's at the same trailing path.
python3 -m dynamo.frontend &
python3 -m dynamo.trtllm \
  --model-path Qwen/Qwen3-0.6B \
  --served-model-name Qwen/Qwen3-0.6B \
  --extra-engine-args /workspace/examples/backends/trtllm/engine_configs/qwen3/agg.yaml
python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args /nowhere/engine.yaml
