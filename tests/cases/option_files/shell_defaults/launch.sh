#!/bin/bash
# servelint-test: engine=vllm==0.21.0
# Option-file paths written with parameter expansions, read as bash would on a plain run.
# A variable the script never sets takes its default (the caller may still set it).
vllm serve Qwen/Qwen3-8B --config ${SERVE_CONFIG:-conf/serve.yaml}
# an absolute container path as a default: the checkout file at the same trailing path
vllm serve Qwen/Qwen3-8B --config "${SERVE_CONFIG:-/workspace/serving/abs.yaml}"
# a variable the script sets: its value
CONFIG_DIR=serving
vllm serve Qwen/Qwen3-8B --config "${CONFIG_DIR:-conf}/serve.yaml"
# a default nothing provides: a note, not a warning (the caller may set the variable)
vllm serve Qwen/Qwen3-8B --config ${OTHER_CONFIG:-conf/absent.yaml}
# nothing the script says decides these: a note each
vllm serve Qwen/Qwen3-8B --config ${UNSET_DIR}/serve.yaml
PICKED=$(ls conf/*.yaml | head -n 1)
vllm serve Qwen/Qwen3-8B --config ${PICKED:-conf/serve.yaml}
