#!/bin/bash
# servelint-test: engine=sglang==0.5.9
# SGLang's ConfigArgumentMerger (server_args_config_parser.py) turns each key of --config FILE
# into flags: a finding on a key is placed on that key's line (or its value) in the file.
# relative to the launching file's folder: an unknown key, a value argparse refuses
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config conf/keys.yaml
# an absolute container path: the checkout file at the same trailing path
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config /workspace/serving/server.yaml
# a file nothing provides: one warning at the launch's --config value
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --config absent.yaml
