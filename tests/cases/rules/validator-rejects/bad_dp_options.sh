# servelint-test: engine=vllm==0.33.0
# profile fact: conditions.EngineArgs, `self.enable_fault_tolerance and (not (self.data_parallel_external_lb or self.data_parallel_rank is not None)) and …` (vllm/engine/arg_utils.py:2451)
vllm serve Qwen/Qwen3-8B --data-parallel-size 2 --enable-fault-tolerance
# profile fact: conditions.EngineArgs, `(not (self.data_parallel_external_lb or …) and (not self.data_parallel_size_local is not None) and self.data_parallel_hybrid_lb) and …` (vllm/engine/arg_utils.py:2520)
vllm serve Qwen/Qwen3-8B --data-parallel-size 4 --data-parallel-hybrid-lb
