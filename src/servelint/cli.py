"""Command line entry point: ``servelint <command> ...``.

Each command lives in a module of ``servelint.commands`` (``COMMANDS``) that exposes
``register(parser)``, which adds the command's arguments and sets ``func(args) -> int``.
Only the module of the command named is imported (here, in ``_command_module``): each
imports what it runs at its top, and ``servelint --help`` imports none of them.
Exit codes: 0 no error, 1 errors found, 2 usage or internal failure.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from types import ModuleType

# command -> (its module under servelint.commands, the line ``servelint --help`` shows)
COMMANDS = {
    "check": ("check", "check launch configurations against the engine release"),
    "render": ("render", "print every launch a vLLM recipe renders to, as the site does"),
    "profile": ("profile", "build, list, show and diff engine release profiles"),
    "explain": ("explain", "show a rule's documentation (by code or name)"),
}


def _command_module(name: str) -> ModuleType:
    """``servelint.commands.<name>``, imported when that command (or ``--version``) runs."""
    return importlib.import_module(f"servelint.commands.{name}")


class _VersionAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(_command_module("version_info").version_text())
        parser.exit()


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line parser; the arguments of the command ``argv`` starts with, when it
    names one (every command's, when ``argv`` is None: tests and docs)."""
    parser = argparse.ArgumentParser(
        prog="servelint",
        description="Check LLM-serving launch configurations against the engine release they pin.",
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        nargs=0,
        help="show the version and the profile data (engines, releases, builder) and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, summary) in COMMANDS.items():
        command = sub.add_parser(name, help=summary)
        if argv is None or (argv and argv[0] == name):
            _command_module(module).register(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    # A run allocates millions of small, short-lived, acyclic objects (the imported modules'
    # functions and classes, then tokens and findings): a young generation of 100,000 instead
    # of 700 spends far less time collecting (a corpus check -15%; a small file's run, which
    # then collects nothing, ~6 ms). Set before the command's modules are imported.
    gc.set_threshold(100_000, 50, 100)
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # an internal failure is exit 2 with a short message
        print(f"servelint: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if "--debug" in (argv or sys.argv):
            raise
        return 2


def run() -> None:
    """``servelint`` as a command: ``main``, then the output flushed and the process ended
    without the interpreter's teardown (every module and memo freed object by object, a
    last full collection), which a short run spends ~6% of its time on."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to write
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
