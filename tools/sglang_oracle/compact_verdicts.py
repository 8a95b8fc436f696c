"""Compact check_argv.py output into the committed adversarial verdict file.

    python3 compact_verdicts.py OUT.json VERSION tests/conformance_sglang/adversarial-VERSION.json.gz

Each case becomes ``[id, argv, verdict, exit_code, kind, message]`` (message cut at 160
characters); gzip with mtime 0 and sorted keys, so a re-run gives the same bytes.
"""

from __future__ import annotations

import gzip
import json
import sys


def main() -> None:
    data = json.load(open(sys.argv[1]))
    rows = []
    for r in data["results"]:
        message = (r.get("message") or [""])[-1][:160]
        rows.append([r["id"], r["argv"], r["verdict"], r.get("exit_code"), r.get("kind"), message])
    out = {
        "meta": {
            "release": sys.argv[2],
            "cases": len(rows),
            "generator": "tools/sglang_oracle/gen_cases.py",
        },
        "cases": rows,
    }
    text = json.dumps(out, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with open(sys.argv[3], "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(text.encode("utf-8", "surrogatepass"))
    print(len(rows), "cases")


if __name__ == "__main__":
    main()
