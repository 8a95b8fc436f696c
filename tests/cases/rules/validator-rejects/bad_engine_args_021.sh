# servelint-test: engine=vllm==0.21.0
# profile fact: conditions.EngineArgs, `assert self.data_parallel_backend == "mp"` when not ray (vllm/engine/arg_utils.py:1874)
vllm serve Qwen/Qwen3-8B --data-parallel-backend MP
