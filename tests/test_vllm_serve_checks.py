"""The checks `vllm serve` makes on the parsed namespace (builder/serve_checks.py, read from
a wheel; engines/vllm/serve_checks.py, evaluated over a launch)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.vllm import serve_checks
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, holds
from servelint.engines.vllm.verdict import static_verdict

MAIN = """
def main():
    subparsers = parser.add_subparsers(required=False, dest="subparser")
"""

SERVE = """
from vllm.entrypoints.cli_args import validate_parsed_serve_args


class ServeSubcommand:
    name = "serve"

    def validate(self, args):
        validate_parsed_serve_args(args)
"""

CLI_ARGS = """
LIMIT = 3


def check_port(args, limit=LIMIT):
    if getattr(args, "port", None) is None:
        return
    if args.port > limit:
        raise ValueError("port above the limit")


def check_map(value):
    if value is None:
        return
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError("map must be an object of strings")


def validate_parsed_serve_args(args):
    if hasattr(args, "subparser") and args.subparser != "serve":
        return
    check_port(args)
    check_map(getattr(args, "effort_map", None))
    if getattr(args, "subparser", None) != "serve" and args.tool:
        raise ValueError("differs between launchers: never recorded")
    if args.auto and not args.tool:
        raise TypeError("--auto requires --tool")
    if args.extra:
        from vllm.entrypoints.other import check_extra

        check_extra(args)


def unused(args):
    raise ValueError("not called")
"""

OTHER = """
def check_extra(args):
    if args.size < 2:
        raise ValueError("--extra requires --size > 1")
    start = compute(args)
    if args.size > 8:
        raise ValueError("after a call given the namespace: not recorded")
"""


def _actions() -> list[dict]:
    def act(dest: str, kind: str = "store", default: str | None = None) -> dict:
        return {"dest": dest, "kind": kind, "default": default}

    return [
        act("port"),
        act("effort_map"),
        act("tool"),
        act("auto", "store_true", "False"),
        act("extra", "store_true", "False"),
        act("size"),
    ]


@pytest.fixture(scope="module")
def section(tmp_path_factory: pytest.TempPathFactory) -> dict:
    wheel = Path(tmp_path_factory.mktemp("wheel")) / "vllm-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("vllm/entrypoints/cli/main.py", MAIN)
        zf.writestr("vllm/entrypoints/cli/serve.py", SERVE)
        zf.writestr("vllm/entrypoints/cli_args.py", CLI_ARGS)
        zf.writestr("vllm/entrypoints/other.py", OTHER)
    profile = {"parser": {"origin": "vllm/entrypoints/cli/serve.py:1", "actions": _actions()}}
    return serve_checks.extract(WheelSource(wheel), profile)["serve_checks"]


def test_builder_reads_the_function_and_its_helpers(section: dict) -> None:
    by_message = {c["message"]: c for c in section["checks"]}
    assert section["called"] == "vllm/entrypoints/cli/serve.py:9"
    # a helper's parameters bound to the call's arguments (its default a module literal)
    port = by_message["ValueError: port above the limit"]
    assert port["test"] == "not self.port is None and self.port > 3"
    assert port["source"] == "vllm/entrypoints/cli_args.py:9"
    # all() in the list form the check-time walker evaluates
    assert (
        "isinstance(self.effort_map, dict)"
        in by_message["ValueError: map must be an object of strings"]["test"]
    )
    # the sub-command guard is the same for every launcher: folded away
    auto = by_message["TypeError: --auto requires --tool"]
    assert auto["test"] == "self.auto and (not self.tool)"
    # a function imported from another module, with its own file in the source
    extra = by_message["ValueError: --extra requires --size > 1"]
    assert extra["source"] == "vllm/entrypoints/other.py:4"
    assert extra["test"] == "self.extra and self.size < 2"
    messages = set(by_message)
    assert "ValueError: differs between launchers: never recorded" not in messages
    assert "ValueError: after a call given the namespace: not recorded" not in messages
    assert section["defaults"] == {"auto": {"value": False}, "extra": {"value": False}}


@pytest.mark.parametrize(
    ("value", "expected"),
    [({"low": "x"}, False), ({"low": 1}, True), ([], True), ("x", True), (1, True)],
)
def test_type_tests_are_evaluated(section: dict, value: object, expected: bool) -> None:
    test = next(c["test"] for c in section["checks"] if "effort_map" in c["test"])
    assert holds(test, Values("namespace", {"effort_map": value})) is expected


@pytest.mark.parametrize(
    ("version", "argv", "stage"),
    [
        ("0.33.0", ["m", "--reasoning-effort-map", "[]"], "validate"),
        ("0.33.0", ["m", "--reasoning-effort-map", '{"low": 1}'], "validate"),
        ("0.33.0", ["m", "--reasoning-effort-map", '{"low": "minimal"}'], "accepted"),
        ("0.33.0", ["m", "--enable-auto-tool-choice"], "validate"),
        ("0.33.0", ["m", "--enable-auto-tool-choice", "--tool-call-parser", "hermes"], "accepted"),
        ("0.33.0", ["m", "--data-parallel-multi-port-external-lb"], "validate"),
        ("0.11.0", ["m", "--enable-auto-tool-choice"], "validate"),
    ],
)
def test_static_verdict_on_the_releases(version: str, argv: list[str], stage: str) -> None:
    profile = profiles.load("vllm", version)
    assert profile is not None
    assert static_verdict(profile, argv).stage == stage
