#!/bin/bash
# the worker line of ai-dynamo/dynamo examples/backends/vllm/launch/agg_spec_decoding.sh
# (commit 51e158b3), with a flag neither Dynamo 1.4.0 nor vLLM defines
CUDA_VISIBLE_DEVICES=0 python -m dynamo.vllm \
    --model meta-llama/Meta-Llama-3.1-8B-Instruct \
    --enforce-eager \
    --bogus-flag 1 \
    --gpu-memory-utilization 0.8
