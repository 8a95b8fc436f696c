# servelint-test: engine=vllm==0.33.0
# profile fact: conditions.EngineArgs, `self.data_parallel_address is None and … not self.data_parallel_backend == 'mp'` (vllm/engine/arg_utils.py:2547)
vllm serve Qwen/Qwen3-8B --data-parallel-backend none
# profile fact: conditions.EngineArgs, `self.nnodes > 1 and … % self.nnodes != 0` (vllm/engine/arg_utils.py:2407)
vllm serve Qwen/Qwen3-8B --nnodes 3 --tensor-parallel-size 2
