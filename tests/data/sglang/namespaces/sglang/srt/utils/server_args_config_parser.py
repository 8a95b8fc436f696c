# ruff: noqa
class ConfigArgumentMerger:
    def __init__(self, parser):
        self.store_true_actions = []
        self.unsupported_actions = {}

    def merge_config_with_args(self, cli_args):
        config_args, before_config, after_config = [], [], []
        return config_args + before_config + after_config

    def _validate_yaml_file(self, path):
        if path.suffix.lower() not in [".yaml", ".yml"]:
            raise ValueError(path)
