#!/bin/bash
# servelint-test: engine=sglang==0.5.9
pushd conf
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config server.yaml
popd
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config server.yaml
