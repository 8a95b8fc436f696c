# servelint-test: engine=vllm==0.21.0
# conditions.ParallelConfig, the checks listing env (builder/assigned_values.py):
# __post_init__ sets data_parallel_size = envs.VLLM_DP_SIZE where the launch's is <= 1
# (vllm/config/parallel.py:813; registry default "1", vllm/envs.py:1160), then
# _validate_parallel_config refuses an external LB (:435) and a larger local size (:429).
# A warning: the environment the engine runs in may set VLLM_DP_SIZE. The last launch
# sets the DP size itself: no finding.
vllm serve Qwen/Qwen3-8B --data-parallel-rank 0
vllm serve Qwen/Qwen3-8B --data-parallel-size-local 2
vllm serve Qwen/Qwen3-8B --data-parallel-size 2 --data-parallel-size-local 2
