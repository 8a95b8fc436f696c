"""Verdicts of a Dynamo release's own ``dynamo.sglang`` / ``dynamo.vllm`` argument parsing.

Run with an oracle venv's python (README.md): the ai-dynamo wheel and its ai-dynamo-runtime
wheel unpacked under DYNAMO_DIRS (os.pathsep-separated), the SGLang release the wheel pins
installed; WORKER=sglang (default) or vllm. ``dynamo.<worker>.args.parse_args`` runs as
released, except that the engine's ``from_cli_args`` (``ServerArgs``: model loading, device
probing; ``AsyncEngineArgs``: config resolution) is replaced by a recorder and
``fetch_model`` (a download) by a no-op, so only the parse step is judged.

    python check_worker_argv.py CASES.json OUT.json
CASES.json: [[id, argv], ...]; OUT.json: [[id, argv, verdict, exit_code, kind, message], ...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "sglang_oracle"))
for d in reversed(os.environ["DYNAMO_DIRS"].split(os.pathsep)):
    sys.path.insert(0, d)

import stub_modules  # noqa: E402  (tools/sglang_oracle: GPU-only import stubs)

GPU_STUBS = set(filter(None, os.environ.get("ORACLE_STUBS", "triton").split(",")))
stub_modules.install(GPU_STUBS)


class Parsed(Exception):
    """Raised by the recorder in place of ServerArgs.from_cli_args: the parse step passed."""


WORKER = os.environ.get("WORKER", "sglang")


def _patch():
    if WORKER == "vllm":
        return _patch_vllm()
    import dynamo.sglang.args as args_mod

    def record(cls_or_args, *rest):
        raise Parsed()

    async def no_fetch(*a, **k):
        return None

    args_mod.ServerArgs.from_cli_args = classmethod(lambda cls, a: record(a))
    args_mod.fetch_model = no_fetch
    if not os.environ.get("ORACLE_REBUILD"):
        _reuse_engine_parser(args_mod.ServerArgs)
    return args_mod


def _patch_vllm():
    sys.path.insert(0, str(HERE.parent / "oracle"))
    from oracle_common import force_platform  # tools/oracle: vLLM's CpuPlatform, as its oracle

    force_platform()
    import dynamo.vllm.args as args_mod

    def record(cls, a):
        raise Parsed()

    args_mod.AsyncEngineArgs.from_cli_args = classmethod(record)
    return args_mod


def _reuse_engine_parser(server_args) -> None:
    """Build SGLang's parser once and give every later ``add_cli_args(parser)`` its actions
    (argparse keeps no per-parse state in them; 90% of a case's time was the rebuild).
    ``ORACLE_REBUILD=1`` rebuilds it per case."""
    template = argparse.ArgumentParser(add_help=False)
    server_args.add_cli_args(template)

    def add_cli_args(parser: argparse.ArgumentParser) -> None:
        parser._add_container_actions(template)

    server_args.add_cli_args = staticmethod(add_cli_args)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def judge(args_mod, argv: list[str]) -> tuple[str, int | None, str | None, str]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            done = args_mod.parse_args(list(argv))
            if asyncio.iscoroutine(done):
                asyncio.run(done)
    except Parsed:
        return "accepted", None, None, ""
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        kind = "argparse" if code == 2 else ("help" if code == 0 else "exit")
        return "rejected", code, kind, _last_line(err.getvalue())
    except Exception as exc:  # noqa: BLE001  (every raise of the release is a verdict)
        return "rejected", 1, type(exc).__name__, str(exc).splitlines()[0][:300] if str(exc) else ""
    return "accepted", None, "returned", ""  # diffusion workers never build ServerArgs


def main() -> None:
    cases = json.loads(Path(sys.argv[1]).read_text())
    args_mod = _patch()
    out = [[cid, argv, *judge(args_mod, argv)] for cid, argv in cases]
    Path(sys.argv[2]).write_text(json.dumps(out))
    rej = sum(r[2] == "rejected" for r in out)
    print(f"{len(out)} cases, {rej} rejected", file=sys.stderr)


if __name__ == "__main__":
    main()
