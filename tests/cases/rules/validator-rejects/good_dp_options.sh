# servelint-test: engine=vllm==0.33.0
# the same options with what they need (vllm/engine/arg_utils.py:2451, :2520): no error; an
# external rank gives the model-dependent warning of :2461 (dense models refuse it)
vllm serve Qwen/Qwen3-8B --data-parallel-size 2 --data-parallel-rank 0 --enable-fault-tolerance
vllm serve Qwen/Qwen3-8B --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-hybrid-lb
# --fault-tolerance-config turns fault tolerance on in EngineArgs.__post_init__ (:906-912):
# the check is not decided for it, never a finding
vllm serve Qwen/Qwen3-8B --data-parallel-size 2 --data-parallel-external-lb --data-parallel-rank 1 --fault-tolerance-config '{}'
