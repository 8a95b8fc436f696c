#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
# A file nothing provides is one warning; one the script copies into place is not.
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options nowhere.yaml
cp /opt/configs/base.yaml copied.yaml
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options copied.yaml
