#!/bin/bash
# a container started from a script: the image runs `vllm serve` (vllm-openai ENTRYPOINT)
docker run --gpus all -e VLLM_NOT_A_SETTING=1 vllm/vllm-openai:v0.27.1 org/m --bogus-flag 1
# the entrypoint-shape mistake: the arguments repeat the entrypoint
podman run vllm/vllm-openai:v0.27.1 vllm serve org/m --seed 1
