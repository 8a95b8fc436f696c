#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
# After ai-dynamo/dynamo@0b03d33 examples/backends/trtllm/launch/disagg.sh: the engine
# arguments' path is a variable the script sets with its own default, under another one
# (/workspace is the checkout in the container): read as bash does when the caller sets
# neither, the file is this folder's at the same trailing path.
export DYNAMO_HOME=${DYNAMO_HOME:-"/workspace"}
export DECODE_ENGINE_ARGS=${DECODE_ENGINE_ARGS:-"$DYNAMO_HOME/examples/backends/trtllm/engine_configs/qwen3/decode.yaml"}
export PREFILL_ENGINE_ARGS=${PREFILL_ENGINE_ARGS:-"$DYNAMO_HOME/examples/backends/trtllm/engine_configs/qwen3/prefill.yaml"}
python3 -m dynamo.frontend &
python3 -m dynamo.trtllm \
  --model-path Qwen/Qwen3-0.6B \
  --extra-engine-args "$DECODE_ENGINE_ARGS" \
  --disaggregation-mode decode &
# a default nothing provides here: a note (the caller may set the variable)
python3 -m dynamo.trtllm \
  --model-path Qwen/Qwen3-0.6B \
  --extra-engine-args "$PREFILL_ENGINE_ARGS" \
  --disaggregation-mode prefill &
# a value the script takes from a command: a note
PICKED=$(ls engine_configs/*.yaml | head -n 1)
python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args "$PICKED"
