# servelint-test: image=vllm/vllm-openai:v0.33.0
vllm serve meta-llama/Llama-3.1-8B-Instruct --grpc
