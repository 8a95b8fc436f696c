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
from dynamo_worker_conformance import KNOWN_FILE, files, judge  # noqa: E402

REASONS = [
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
        r"Custom Jinja template file not found",
        "miss: a file existence check on the machine the worker runs on",
    ),
    (r"^help \(exit 0\)", "miss: `--version` prints and exits 0 (not a parse error)"),
    (
        r"^None \(exit None\)",
        "false error: SGLang's engine profile keeps the Literal's values where the release's "
        "Arg(choices=Backend.ALL) (server_args.py) wins; the SGLang builder did not resolve "
        "Backend.ALL (root cause in engines/sglang/builder/parser.py, not in the Dynamo path)",
    ),
]


def reason(case: dict) -> str:
    for pattern, why in REASONS:
        if re.search(pattern, case["real"]):
            return why
    return "NOT LISTED"


def main() -> None:
    out: dict[str, dict[str, str]] = {}
    for path in files():
        o = judge(path)
        out[o.dynamo] = {c["id"]: reason(c) for c in o.false_errors + o.misses}
    KNOWN_FILE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print("wrote", KNOWN_FILE)


if __name__ == "__main__":
    main()
