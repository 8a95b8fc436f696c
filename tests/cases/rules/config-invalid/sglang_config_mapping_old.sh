# servelint-test: engine=sglang==0.5.13
# sglang 0.5.13 server_args_config_parser.py _convert_config_to_args has no dict branch: the
# mapping reaches argparse as str(dict) ("{'temperature': 0.6, ...}"), which json.loads refuses
# (the path is relative to the repository root, where the tests run)
python -m sglang.launch_server --config tests/cases/rules/config-invalid/sglang_config_mapping.yml --port 30000
