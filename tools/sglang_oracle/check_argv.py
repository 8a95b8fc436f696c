"""Verdicts of the real SGLang parse step on argv lists.

    VENV/bin/python check_argv.py CASES.json OUT.json

CASES.json: list of {"id": str, "argv": [...]} (argv = tokens after `python -m
sglang.launch_server`). Config files named in argv are read relative to the cwd.
"""

from __future__ import annotations

import json
import sys
import time

from oracle_common import run

cases = json.load(open(sys.argv[1]))
t0 = time.perf_counter()
results = []
for case in cases:
    res = run(case["argv"])
    res.pop("merged_argv", None)
    results.append({"id": case["id"], "argv": case["argv"], **res})
meta = {"seconds": round(time.perf_counter() - t0, 2), "cases": len(cases)}
json.dump({"meta": meta, "results": results}, open(sys.argv[2], "w"), indent=1)
print(meta)
