#!/usr/bin/env bash
# plain name: picked for the sglang entry (no m1_fp8_b200_sglang.sh)
if [ "$CONC" -ge 128 ]; then CHUNK=16384; else CHUNK=8192; fi
PYTHONNOUSERSITE=1 python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --chunked-prefill-size $CHUNK
