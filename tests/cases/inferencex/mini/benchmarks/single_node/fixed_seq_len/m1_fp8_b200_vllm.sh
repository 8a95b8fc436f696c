#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC
PAR=(--tensor-parallel-size "$TP")
if [ "$DP_ATTENTION" = "true" ]; then PAR=(--tensor-parallel-size 1 --data-parallel-size "$TP"); fi
vllm serve "$MODEL" --port "$PORT" "${PAR[@]}" --max-model-len "$MAX_MODEL_LEN" > log 2>&1 &
