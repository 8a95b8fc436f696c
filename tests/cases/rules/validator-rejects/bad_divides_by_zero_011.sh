# servelint-test: engine=vllm==0.11.0
# profile fact: conditions.EngineArgs, `not self.tensor_parallel_size % self.decode_context_parallel_size == 0`
# (vllm/engine/arg_utils.py:1184): the engine's assert divides by the option, ZeroDivisionError at 0
vllm serve Qwen/Qwen3-8B --decode-context-parallel-size 0
vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4 --decode-context-parallel-size 2
