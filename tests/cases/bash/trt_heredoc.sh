#!/usr/bin/env bash
CONFIG=extra.yml
cat > $CONFIG << EOF2
enable_attention_dp: $DP_ATTENTION
kv_cache_config:
    dtype: fp8
EOF2
if [[ "$DP_ATTENTION" == "true" ]]; then
    cat << EOF2 >> $CONFIG
attention_dp_config:
    enable_balance: true
EOF2
fi
mpirun -n 1 --oversubscribe --allow-run-as-root \
    trtllm-serve $MODEL --port=$PORT \
    --tp_size=$TP \
    --extra_llm_api_options=$CONFIG \
    > server.log 2>&1 &
