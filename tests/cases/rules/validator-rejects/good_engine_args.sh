# servelint-test: engine=vllm==0.33.0
# the create_engine_config checks hold: the ray backend, nnodes dividing the world size
vllm serve Qwen/Qwen3-8B --data-parallel-backend ray
vllm serve Qwen/Qwen3-8B --nnodes 2 --tensor-parallel-size 2
vllm serve Qwen/Qwen3-8B --nnodes 2 --node-rank 1 --data-parallel-size 2
