"""SGLang --config: a mapping value is written as the release's merger writes it."""

from __future__ import annotations

import ast

import pytest

from servelint import profiles
from servelint.builders.sglang.parser_rules import mapping_values
from servelint.engines.sglang.config_merge import config_args

# the two shapes of server_args_config_parser.py._convert_config_to_args (0.5.13 / 0.5.14+)
OLD = """
class M:
    def _convert_config_to_args(self, config):
        for key, value in config.items():
            if isinstance(value, bool):
                pass
            elif isinstance(value, list):
                pass
            else:
                self._add_scalar_arg(args, key, value)
"""
NEW = OLD.replace(
    "            else:",
    "            elif isinstance(value, dict):\n"
    "                self._add_scalar_arg(args, key, json.dumps(value))\n"
    "            else:",
)


def test_builder_reads_the_mapping_branch() -> None:
    assert mapping_values(ast.parse(OLD), "p.py")["form"] == "str"
    got = mapping_values(ast.parse(NEW), "p.py")
    assert got == {"form": "json", "source": "p.py:9"}


@pytest.mark.parametrize(
    ("release", "value"),
    [("0.5.13", "{'a': 1, 'b': [1, 2]}"), ("0.5.14", '{"a": 1, "b": [1, 2]}')],
)
def test_mapping_value_per_release(tmp_path, release: str, value: str) -> None:
    profile = profiles.load("sglang", release)
    if profile is None:
        pytest.skip("no committed SGLang profile")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model-path: m\ndefault-chat-template-kwargs: {a: 1, b: [1, 2]}\n")
    merged, count = config_args(profile, ["--config", str(cfg)], lambda p: {
        "model-path": "m", "default-chat-template-kwargs": {"a": 1, "b": [1, 2]}})
    assert count == 4 and merged[3] == value


def test_unserialisable_mapping_is_the_releases_failure(tmp_path) -> None:
    import datetime

    from servelint.engines.argparse_emul import ArgFail

    profile = profiles.load("sglang", "0.5.23")
    if profile is None:
        pytest.skip("no committed SGLang profile")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("x: 1\n")
    with pytest.raises(ArgFail, match="not JSON serializable"):
        config_args(profile, ["--config", str(cfg)], lambda p: {"k": {"d": datetime.date(2025, 1, 1)}})
