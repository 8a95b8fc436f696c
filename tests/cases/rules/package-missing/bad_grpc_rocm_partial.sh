# servelint-test: image=vllm/vllm-openai:v0.33.0 gpu=mi300x
vllm serve meta-llama/Llama-3.1-8B-Instruct --grpc
