"""Probe used by resolve_deps.py (run INSIDE the oracle venv).

    python probe_env.py parser   # build the real `vllm serve` parser, parse `serve m`
    python probe_env.py full     # ... and run check_argv's post-parse stages

Exits non-zero with the ModuleNotFoundError traceback when an import is
missing, so the resolver can install the package. Errors in the deep stages
that are not ModuleNotFoundError are printed but do not fail the probe.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle_common  # noqa: E402


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "parser"
    parser, serve, build_mode, dt, _ = oracle_common.build_cli_parser(
        allow_fallback=False
    )
    parser.parse_args(["serve", "m"])
    print(f"parser OK: {len(serve._actions)} actions, build {dt:.2f}s, "
          f"vllm {oracle_common.vllm_version()}")
    if mode == "full":
        import check_argv

        res = check_argv.check_one(
            parser, ["serve", "m", "--tensor-parallel-size", "1"], deep=True,
            raise_import_errors=True,
        )
        print("full probe:", {k: v.get("ok") for k, v in res["stages"].items()})
        if res["verdict"] != "accepted":
            import json

            print(json.dumps(res["stages"], indent=1, default=str))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
