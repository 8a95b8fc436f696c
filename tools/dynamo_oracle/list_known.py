"""Write tests/conformance_dynamo/worker_known.json: each disagreement with the reason for it,
by what the real parser did (``python3 tools/dynamo_oracle/list_known.py``). A disagreement
no reason below explains is written as NOT LISTED, which the test rejects."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "conformance_dynamo"))
from dynamo_worker_conformance import KNOWN_FILE, files, judge, key  # noqa: E402

REASONS = [
    (
        r"^None .*flag-unknown: unknown flag \"--benchmark-[\w-]+-granularity",
        "false error: the Dynamo profile builder misses the five deprecated "
        "--benchmark-*-granularity options dynamo/vllm/backend_args.py:342-379 adds in a "
        "loop over a literal tuple (root cause in engines/dynamo/build.py; no corpus recipe "
        "uses them)",
    ),
    (
        r"^None .*(value-rejected-later|config-invalid|"
        r"validator-rejects: [^:]* at engine config):",
        "false error of scope: servelint's finding is about vLLM's engine-config stage "
        "(after AsyncEngineArgs.from_cli_args, which this oracle replaces by a recorder): the "
        "parse step accepts the value, the engine rejects it when it builds its config",
    ),
    (
        r"^None .*value-invalid: sglang .*--cuda-graph-backend-prefill: invalid choice",
        "false error: SGLang's engine profile keeps the Literal's values where the release's "
        "Arg(choices=Backend.ALL) (server_args.py) wins; the SGLang builder did not resolve "
        "Backend.ALL (root cause in engines/sglang/builder/parser.py, not in the Dynamo path)",
    ),
    (
        r"expected one argument",
        "miss: a worker-own option with no value; servelint's worker split takes the next "
        "token or nothing and reports no missing value (argparse exits 2)",
    ),
    (
        r"ignored explicit argument",
        "miss: `--flag=value` on a worker-own option that takes no value; argparse exits 2, "
        "the worker profile's split does not check it",
    ),
    (
        r"dyn-(tool-call|reasoning)-parser: invalid choice",
        "miss: the choices are `dynamo._core.get_*_parser_names()` of the Rust extension "
        "(runtime_args.py), which the profile builder cannot read from Python source",
    ),
    (
        r"invalid (float|int) value",
        "miss: the worker profile keeps no value type for Dynamo's own options",
    ),
    (
        r"Invalid endpoint format",
        "miss: `--endpoint` is checked by parse_endpoint() after parsing, which servelint "
        "does not model",
    ),
    (
        r"Invalid output modality|must be provided together",
        "miss: DynamoConfig.validate() checks after parsing (a modality name outside "
        "OutputModality; --disagg-config without --disagg-config-key or the reverse), "
        "which the worker profile does not model",
    ),
    (
        r"requires --(benchmark-mode|enable-multimodal)",
        "miss: DynamoConfig.validate() requires a companion option (--benchmark-points-file "
        "needs --benchmark-mode, --custom-encoder-class needs --enable-multimodal), which the "
        "worker profile does not model",
    ),
    (
        r"--mm-processor-device: invalid choice",
        "miss: servelint's vLLM 0.33.0 engine profile keeps no choices for --mm-processor-device",
    ),
    (
        r"unrecognized arguments: --no-exclude-tools-when-tool-choice-no ",
        "miss: an abbreviation of a `vllm serve` API-server option the worker's "
        "AsyncEngineArgs-only parser lacks; servelint's engine-scope check "
        "(launch._engine_scope_findings) matches full names only, so it warns "
        "(flag-abbreviated) instead of erring",
    ),
    (
        r"Custom Jinja template file not found",
        "miss: a file existence check on the machine the worker runs on",
    ),
    (r"^help \(exit 0\)", "miss: `--version` prints and exits 0 (not a parse error)"),
]


def reason(case: dict) -> str:
    """The first matching reason; false-error patterns (the real parser accepted) first."""
    seen = case["real"] + " " + " | ".join(case["ours"])
    for pattern, why in REASONS:
        if re.search(pattern, seen):
            return why
    return "NOT LISTED"


def main() -> None:
    out: dict[str, dict[str, str]] = {}
    for path in files():
        o = judge(path)
        out[key(o)] = {c["id"]: reason(c) for c in o.false_errors + o.misses}
    KNOWN_FILE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print("wrote", KNOWN_FILE)


if __name__ == "__main__":
    main()
