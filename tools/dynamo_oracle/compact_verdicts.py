"""Oracle output -> the committed verdict file:
``python compact_verdicts.py OUT.json DYNAMO_VERSION ENGINE_VERSION DEST.json.gz [sglang|vllm]``."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path


def main() -> None:
    src, dynamo, engine, dest = sys.argv[1:5]
    worker = sys.argv[5] if len(sys.argv) > 5 else "sglang"
    rows = json.loads(Path(src).read_text())
    meta = {
        "dynamo": dynamo,
        "engine": engine,
        "worker": f"dynamo.{worker}",
        "cases": len(rows),
        "generator": "tools/dynamo_oracle/gen_worker_cases.py",
    }
    text = json.dumps({"meta": meta, "cases": rows}, separators=(",", ":"))
    with gzip.GzipFile(dest, "wb", mtime=0) as fh:
        fh.write(text.encode())


if __name__ == "__main__":
    main()
