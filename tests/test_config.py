from pathlib import Path

import pytest
from stub_rules import make_finding

from servelint.model import Severity
from servelint.pipeline.config import (
    Config,
    ConfigError,
    load_config,
    load_config_file,
    parse_config,
)

KNOWN = {"flag-unknown", "SL101", "env-deprecated", "SL301"}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_walks_up_to_pyproject_table(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.servelint]\ndisable = ["SL101"]\n')
    target = write(tmp_path / "recipes" / "a" / "r.yaml", "x: 1\n")
    config = load_config(target, known_rules=KNOWN)
    assert config.path == (tmp_path / "pyproject.toml").resolve()
    assert config.disable == {"SL101"}


def test_pyproject_without_table_is_skipped_and_dotfile_wins(tmp_path):
    write(tmp_path / ".servelint.toml", 'gpu = "h100"\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")
    assert load_config(tmp_path / "sub", known_rules=KNOWN).gpu == "h100"
    write(tmp_path / "pyproject.toml", '[tool.servelint]\ngpu = "b200"\n')
    assert load_config(tmp_path, known_rules=KNOWN).gpu == "h100"


@pytest.mark.parametrize(
    "text",
    [
        '[tool.servelint]\ngpu = "b200"\n',
        '[ tool . "servelint" . severity ]\nSL101 = "warning"\n[tool.servelint]\ngpu = "b200"\n',
        '[tool]\nservelint = {gpu = "b200"}\n',
        'tool.servelint.gpu = "b200"\n[project]\nname = "x"\n',
        'tool = {servelint = {gpu = "b200"}}\n',
    ],
)
def test_pyproject_table_in_any_spelling(tmp_path, text):
    write(tmp_path / "pyproject.toml", "# a project\n" + text)
    assert load_config(tmp_path, known_rules=KNOWN).gpu == "b200"


def test_pyproject_naming_servelint_without_a_table_is_not_parsed(tmp_path):
    # servelint's own pyproject names it as a project, a script and package data; no line
    # opens a [tool.servelint] table, so the file is skipped unparsed (broken TOML included)
    write(tmp_path / ".servelint.toml", 'gpu = "h100"\n')
    write(
        tmp_path / "sub" / "pyproject.toml",
        '[project]\nname = "servelint"\n[project.scripts]\nservelint = "servelint.cli:run"\n'
        "[tool.ruff]\nline-length = 100\nbroken = [\n",
    )
    assert load_config(tmp_path / "sub", known_rules=KNOWN).gpu == "h100"


def test_no_config_gives_defaults(tmp_path):
    config = load_config(tmp_path, known_rules=KNOWN)
    assert config.path is None and config.severity == {} and not config.disable
    assert config.apply([make_finding()]) == [make_finding()]


def test_full_config(tmp_path):
    path = write(tmp_path / ".servelint.toml", """
severity = {flag-unknown = "warning", sl301 = "error"}
disable = []
exclude = ["vendor", "recipes/old/*.yaml"]
images = {"vllm/vllm-openai:nightly-*" = "vllm==0.33.0", "vllm/vllm-openai:*" = "vllm==0.27.1"}
min-severity = "info"
gpu = "H100"
target-version = "0.27.1"
""")
    config = load_config_file(path, known_rules=KNOWN)
    assert config.severity == {"flag-unknown": Severity.WARNING, "SL301": Severity.ERROR}
    assert config.gpu == "h100"
    assert config.target_version == "vllm==0.27.1"
    assert config.min_severity == "info"
    assert config.image_release("vllm/vllm-openai:nightly-2026") == ("vllm", "0.33.0")
    assert config.image_release("docker.io/vllm/vllm-openai:v0.27.1") == ("vllm", "0.27.1")
    assert config.image_release("lmsysorg/sglang:latest") is None
    assert config.excluded(tmp_path / "vendor" / "x" / "r.yaml")
    assert config.excluded(tmp_path / "recipes" / "old" / "r.yaml")
    assert not config.excluded(tmp_path / "recipes" / "new" / "r.yaml")
    assert not config.excluded("/elsewhere/recipes/r.yaml")


def test_apply_disable_remap_and_min_severity():
    config = parse_config({"severity": {"SL101": "warning"}, "disable": ["env-deprecated"],
                           "min-severity": "warning"}, known_rules=KNOWN)
    flag = make_finding()
    env = make_finding(code="SL301", rule="env-deprecated", severity=Severity.ERROR)
    info = make_finding(code="SL999", rule="other", severity=Severity.INFO)
    (out,) = config.apply([flag, env, info])
    assert out.code == "SL101" and out.severity == Severity.WARNING
    assert flag.severity == Severity.ERROR  # the input finding is not mutated
    raised = parse_config({"severity": {"other": "error"}, "min-severity": "error"},
                          known_rules=set())
    assert [f.code for f in raised.apply([info, env])] == ["SL999", "SL301"]


@pytest.mark.parametrize(("table", "message"), [
    ({"disabel": ["SL101"]}, 'unknown key "disabel"; did you mean "disable"?'),
    ({"disable": "SL101"}, '"disable" must be a list of strings, got a string'),
    ({"disable": [1]}, '"disable" must be a list of strings, got an item of an integer'),
    ({"disable": ["flag-unknwn"]}, 'unknown rule "flag-unknwn" in "disable"; '
                                   'did you mean "flag-unknown"?'),
    ({"severity": {"SL101": "fatal"}}, '"severity.SL101" must be one of info, warning, error'),
    ({"severity": ["SL101"]}, '"severity" must be a table, got an array'),
    ({"images": {"x:*": "0.33.0"}}, '"images.x:*" must be "engine==version"'),
    ({"images": {"x:*": "vllm==zzz"}}, 'invalid version "zzz"'),
    ({"images": {"x:*": 3}}, '"images.x:*" must be a string'),
    ({"min-severity": "high"}, '"min-severity" must be one of'),
    ({"gpu": "quantum9"}, 'unknown gpu "quantum9"'),
    ({"gpu": 100}, '"gpu" must be a string, got an integer'),
    ({"target-version": 0.27}, '"target-version" must be a string'),
])
def test_validation_errors(table, message):
    with pytest.raises(ConfigError) as err:
        parse_config(table, Path("/p/.servelint.toml"), known_rules=KNOWN)
    assert str(err.value).startswith("/p/.servelint.toml: ")
    assert message in str(err.value)


def test_unknown_key_without_close_match_lists_the_keys():
    with pytest.raises(ConfigError, match=r'unknown key "zzz"\. expected one of severity, disable'):
        parse_config({"zzz": 1})


def test_invalid_toml_is_a_config_error(tmp_path):
    write(tmp_path / ".servelint.toml", "disable = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


def test_a_config_file_that_is_not_utf8_is_a_config_error_naming_it(tmp_path):
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.servelint]\ndisable = ["\xff"]\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml: invalid TOML"):
        load_config(tmp_path)


def test_rule_ids_unchecked_without_known_rules():
    config = parse_config({"disable": ["anything"]}, known_rules=set())
    assert config.disable == {"anything"}


def test_default_config_object():
    assert Config().excluded("x.yaml") is False
    assert Config().image_release("vllm/vllm-openai:latest") is None
