"""The config file's JSON Schema (src/servelint/data/config.schema.json) agrees with the
config parser on example configs, the config module's own docstring example included."""

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

import servelint
from servelint.pipeline import config as config_mod
from servelint.pipeline.config import ConfigError, parse_config
from servelint.util.hardware import GPUS

SCHEMA = json.loads((Path(servelint.__file__).parent / "data" / "config.schema.json").read_text())
VALID = jsonschema.Draft202012Validator(SCHEMA)


def docstring_example() -> str:
    """The indented TOML block of servelint.pipeline.config's docstring."""
    block = re.search(r"Keys \(all optional\)::\n\n(?P<body>(?: {4}.*\n)+)", config_mod.__doc__)
    return "\n".join(line[4:] for line in block.group("body").splitlines())


GOOD = [
    'severity = {flag-unknown = "warning", SL104 = "error"}\ndisable = ["sl191"]\n',
    'exclude = ["vendor", "*.bak.yaml"]\nimages = {"vllm/vllm-openai:nightly-*" = "vllm==0.33.0"}\n',
    'min-severity = "info"\ngpu = "H100"\ntarget-version = "0.27.1"\n',
    'gpu = "rtx-pro-6000"\ntarget-version = "sglang==0.5.9"\n',
]
BAD = [
    'gpu = "b3000"\n',  # no snap to b300
    "unknown-key = 1\n",
    'severity = {flag-unknown = "high"}\n',
    'disable = "SL101"\n',
    'images = {"x:*" = "vllm 0.33.0"}\n',
    'min-severity = "warn"\n',
    "target-version = 0.27\n",
]


def test_docstring_example_is_valid_for_schema_and_parser():
    text = docstring_example()
    assert 'disable = ["SL191"]' in text  # the example once named SL205, which no rule has
    table = tomllib.loads(text)
    assert not list(VALID.iter_errors(table))
    parse_config(table)


@pytest.mark.parametrize("text", GOOD)
def test_schema_and_parser_accept(text):
    table = tomllib.loads(text)
    assert not list(VALID.iter_errors(table)), list(VALID.iter_errors(table))
    parse_config(table)


@pytest.mark.parametrize("text", BAD)
def test_schema_and_parser_refuse(text):
    table = tomllib.loads(text)
    assert list(VALID.iter_errors(table))
    with pytest.raises(ConfigError):
        parse_config(table)


def test_schema_gpu_ids_are_the_hardware_table():
    assert sorted(SCHEMA["properties"]["gpu"]["examples"]) == sorted(GPUS)
    for gpu in GPUS:
        assert not list(VALID.iter_errors({"gpu": gpu.upper().replace("_", "-")}))


def test_schema_keys_are_the_parser_keys():
    assert sorted(SCHEMA["properties"]) == sorted(config_mod.KEYS)
    assert SCHEMA["additionalProperties"] is False
