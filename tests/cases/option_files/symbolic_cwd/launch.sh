#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3
cd "$WORK_DIR"
trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options opts.yaml
