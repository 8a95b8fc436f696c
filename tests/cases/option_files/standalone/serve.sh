#!/bin/bash
# servelint-test: engine=trtllm==1.3.0rc3 check=recipes/agg.yml,recipes/unused.yml
trtllm-serve Qwen/Qwen3-8B --backend pytorch --extra_llm_api_options recipes/agg.yml
