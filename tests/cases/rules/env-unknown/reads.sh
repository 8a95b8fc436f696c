# servelint-test: engine=vllm==0.33.0
# VLLM_SNAPSHOT_TIMEOUT_S is not in vllm 0.33.0's registry (vllm/envs.py) but its code reads
# it by name (profiles/data/vllm/env_reads.json.gz): known, and the misspelt form is found
export VLLM_SNAPSHOT_TIMEOUT_S=60
export VLLM_SNAPSHOT_TIMEOUT=60
vllm serve Qwen/Qwen3-8B
