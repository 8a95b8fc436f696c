#!/bin/bash
# servelint-test: engine=sglang==0.5.9
# A --config file the script writes (heredoc): SGLang's merger reads it by path at run time,
# so its text stands in for the file and a finding goes to the key's line in the heredoc.
cat > /tmp/sglang-server.yaml <<YAML
model-path: Qwen/Qwen3-8B
tp-size: 2
enable-metricz: true
YAML
python3 -m sglang.launch_server --config /tmp/sglang-server.yaml
# a value the script does not fix: the keys are not judged (a note says so)
cat > serve.yaml <<YAML
model-path: Qwen/Qwen3-8B
tp-size: ${TP}
YAML
python3 -m sglang.launch_server --config serve.yaml
