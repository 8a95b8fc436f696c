#!/bin/bash
# servelint-test: engine=vllm==0.21.0
vllm serve Qwen/Qwen3-8B --config conf/serve.yaml
vllm serve Qwen/Qwen3-8B --config conf/absent.yaml
