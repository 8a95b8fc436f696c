# servelint-test: engine=sglang==0.5.23
# sglang 0.5.23 server_args_config_parser.py:178 writes a mapping value with json.dumps: valid
# (the path is relative to the repository root, where the tests run)
python -m sglang.launch_server --config tests/cases/rules/config-invalid/sglang_config_mapping.yml --port 30000
