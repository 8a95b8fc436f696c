"""Run SGLang's own `prepare_server_args` front half inside an oracle venv (see README.md).

`prepare_server_args(argv)` is called unchanged, except that `ServerArgs.from_cli_args` is
replaced by a recorder: everything up to and including `parser.parse_args` (config-file
merging, argparse) is the release's real code; `ServerArgs.__post_init__` (device probing,
model config) is not run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import stub_modules  # noqa: E402

_stubs = Path(sys.prefix, "oracle-stubs.txt")
stub_modules.install(set(_stubs.read_text().split()) if _stubs.exists() else set())
os.environ.setdefault("SGLANG_ORACLE", "1")

_captured: dict = {}
_orig_parse_args = argparse.ArgumentParser.parse_args


def _recording_parse_args(self, args=None, namespace=None):
    _captured["parser"] = self
    _captured["argv"] = list(args) if args is not None else None
    return _orig_parse_args(self, args, namespace)


argparse.ArgumentParser.parse_args = _recording_parse_args

import sglang.srt.server_args as server_args_mod  # noqa: E402


class _Parsed(Exception):
    def __init__(self, namespace):
        self.namespace = namespace


def _stop(cls, args):
    raise _Parsed(args)


server_args_mod.ServerArgs.from_cli_args = classmethod(_stop)

# Building the parser (hundreds of add_argument calls) costs most of a case. The release's
# add_cli_args runs once; later calls hand the new parser the same, already built, state
# (argparse keeps nothing per parse in it). SGLANG_ORACLE_REBUILD=1 rebuilds every time.
_add_cli_args = server_args_mod.ServerArgs.add_cli_args
_built: dict = {}


def _reuse_add_cli_args(parser):
    key = (type(parser), parser.prog, parser.allow_abbrev)
    if key not in _built:
        _add_cli_args(parser)
        _built[key] = dict(vars(parser))
        return None
    vars(parser).update(_built[key])
    return None


if os.environ.get("SGLANG_ORACLE_REBUILD") != "1":
    server_args_mod.ServerArgs.add_cli_args = staticmethod(_reuse_add_cli_args)


def run(argv: list[str]) -> dict:
    """Verdict of the release's real parse step for one argv."""
    _captured.clear()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            server_args_mod.prepare_server_args(list(argv))
    except _Parsed as done:
        ns = {k: repr(v) for k, v in sorted(vars(done.namespace).items())}
        return {"verdict": "accepted", "namespace": ns, "merged_argv": _captured.get("argv")}
    except SystemExit as exc:
        return {"verdict": "rejected", "exit_code": exc.code, "kind": "argparse",
                "message": err.getvalue().strip().splitlines()[-1:] or [""]}
    except Exception as exc:  # raised inside prepare_server_args (config file, ...)
        return {"verdict": "rejected", "exit_code": 1, "kind": type(exc).__name__,
                "message": [str(exc)[:300]]}
    return {"verdict": "error", "message": ["prepare_server_args returned without parsing"]}


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    run(["--model-path", "m"])
    return _captured["parser"], {}
