#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
# The working directory the script sets decides where --config is read from.
cd serve
trtllm-serve Qwen/Qwen3-8B --config extra-llm-api-config.yml
