"""Adding an engine is one package plus a registry line: a toy engine, written into a temporary
package here, is registered and then found in a launcher, checked and listed, with no other
change to servelint."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from pathlib import Path

import pytest

from servelint import profiles
from servelint.cli import main
from servelint.engines import registry

TOY_PACKAGE = '''
"""Toy: ``toy serve MODEL`` or ``python -m toy.server``, images ``toyorg/toy``."""

from pathlib import Path

from servelint.engines.base import Command, Engine, Images, Module

ENGINE = Engine(
    name="toy",
    package="toy-serve",
    images=Images(repositories=("toyorg/toy",), official=("toyorg/toy",)),
    launchers=(Command(("toy", "serve")), Module("toy.server")),
    config_flags=("--config",),
    shell_words=("toy",),
    argv_module="toyengine.argv",
    profile_dir=Path(__file__).parent / "profiles",
)
'''
# the argv model: plain argparse over the profile's actions (the shared emulation)
TOY_ARGV = """
from servelint.engines.argparse_emul import parse_plain


def parse(profile, argv):
    return parse_plain(profile, argv)
"""


def _profile(version: str, extra_actions: list[dict]) -> dict:
    actions = [
        {"dest": "model", "positional": True, "nargs": "?", "option_strings": []},
        {"dest": "port", "option_strings": ["--port"], "type": "int", "type_repr": "int"},
        {"dest": "help", "option_strings": ["-h", "--help"], "kind": "help"},
        *extra_actions,
    ]
    return {
        "format": 1,
        "engine": "toy",
        "version": version,
        "wheel": {"filename": f"toy_serve-{version}-py3-none-any.whl", "sha256": "0" * 64},
        "builder_version": "test",
        "parser": {"actions": actions, "rules": {}, "allow_abbrev": True},
        "image": {"repository": "toyorg/toy", "packages": {}},
    }


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "toyengine"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(TOY_PACKAGE))
    (package / "argv.py").write_text(textwrap.dedent(TOY_ARGV))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register(importlib.import_module("toyengine").ENGINE)  # the registry line
    # what the toy's builder would write: one profile per release, in the engine's profile_dir
    workers = {
        "dest": "workers",
        "option_strings": ["--workers"],
        "type": "int",
        "type_repr": "int",
    }
    for version, extra in (("1.0.0", []), ("1.1.0", [workers])):
        profiles.write(_profile(version, extra), "toy", version)
    yield tmp_path
    registry.unregister("toy")
    profiles.forget()  # what was read of the toy's profiles goes with it
    sys.modules.pop("toyengine", None)
    sys.modules.pop("toyengine.argv", None)


def _check(capsys, *args: str) -> list[dict]:
    code = main(["check", *args, "--format", "json", "--no-cache", "--jobs", "1"])
    report = json.loads(capsys.readouterr().out)
    assert code == (1 if any(f["severity"] == "error" for f in report["findings"]) else 0)
    return report["findings"]


def test_a_launcher_of_the_toy_engine_is_checked_against_its_release(toy, capsys):
    script = toy / "launch.sh"
    script.write_text("#!/bin/bash\ntoy serve my-model --port 8000 --workers 4\n")
    findings = _check(capsys, str(script), "--image", "toyorg/toy:v1.0.0")
    unknown = [f for f in findings if f["code"] == "SL101"]
    assert len(unknown) == 1, findings
    assert "--workers" in unknown[0]["message"] and "toy 1.0.0" in unknown[0]["message"]
    assert unknown[0]["severity"] == "error"
    assert unknown[0]["line"] == 2


def test_the_newer_toy_release_accepts_the_flag(toy, capsys):
    script = toy / "launch.sh"
    script.write_text("#!/bin/bash\npython3 -m toy.server my-model --workers 4\n")
    findings = _check(capsys, str(script), "--image", "toyorg/toy:1.1.0")
    assert [f for f in findings if f["code"] == "SL101"] == []


def test_profile_commands_go_through_the_registry(toy, capsys):
    assert main(["profile", "list", "toy"]) == 0
    assert capsys.readouterr().out.strip() == "toy: 2 releases: 1.0.0, 1.1.0"
    assert main(["profile", "show", "toy", "1.0.0"]) == 0
    assert "toy 1.0.0" in capsys.readouterr().out
    assert main(["profile", "diff", "toy", "1.0.0", "1.1.0"]) == 0
    assert "--workers" in capsys.readouterr().out


def test_without_the_registry_line_the_launch_is_not_recognised(tmp_path, capsys):
    script = tmp_path / "launch.sh"
    script.write_text("#!/bin/bash\ntoy serve my-model --workers 4\n")
    assert registry.find("toy") is None
    assert [f for f in _check(capsys, str(script)) if f["code"] == "SL101"] == []


def test_checking_never_imports_a_builder():
    import subprocess

    code = (
        "import sys\n"
        "from servelint.cli import main\n"
        "main(['check', 'examples', '--no-cache', '--format', 'json', '--jobs', '1'])\n"
        "built = [m for m in sys.modules if m.startswith('servelint.builders')\n"
        "         or '.builder' in m]\n"
        "print('BUILDER', built, file=sys.stderr)\n"
    )
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert "BUILDER []" in proc.stderr, proc.stderr[-2000:]
