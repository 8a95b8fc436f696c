# servelint-test: engine=vllm==0.21.0
# profile fact: conditions.ParallelConfig, `not self.numa_bind and (self.numa_bind_nodes is not None …)` (vllm/config/parallel.py:442)
vllm serve Qwen/Qwen3-8B --numa-bind-nodes 0
