# servelint-test: image=vllm/vllm-openai:v0.27.1
# $(( … )) inside ${VAR:-…} is computed (or symbolic), never empty: an empty value would make
# --tensor-parallel-size take "--max-model-len" and fail
TP=${TP:-$((2 * 2))}
PP=${PP:-$((NODES * 2))}
vllm serve Qwen/Qwen3-8B --tensor-parallel-size $TP --pipeline-parallel-size $PP --max-model-len 4096
