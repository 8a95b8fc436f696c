#!/bin/bash
# servelint-test: engine=sglang==0.5.9
# pushd/popd: the first launch reads conf/server.yaml, the second (after popd) ./server.yaml.
# SGLang's config merge reads the file: its findings are on the lines of its keys.
pushd conf
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config server.yaml
popd
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config server.yaml
