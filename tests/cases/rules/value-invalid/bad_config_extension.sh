# servelint-test: engine=vllm==0.33.0
# the config-file loader accepts yaml/yml only (vllm/utils/argparse_utils.py: "Config file must be of a yaml/yml type")
vllm serve org/m --config serve.json
