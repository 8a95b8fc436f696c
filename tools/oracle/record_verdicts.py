#!/usr/bin/env python
"""Run the conformance corpus through the REAL `vllm serve` front half (inside an oracle venv).

    /tmp/oracle-venvs/vllm-0.27.1/bin/python tools/oracle/record_verdicts.py \
        tests/conformance/cases.jsonl --out /tmp/oracle-raw/0.27.1.jsonl [--deep] [--timeout 30]

A case with "deep": true (make_adversarial.py) gets the deep stages too.
Each case's argv is the part after `vllm serve`; it runs as `vllm serve ARGV` through
check_argv.check_one (stages parse .. renderer) in a forked child of the process that
built the parser, so no state leaks between cases. A child that does not answer within
--timeout seconds is killed and recorded as verdict "oracle-timeout".

Output: one JSON object per line with the raw oracle record (argv, stages, verdict,
rejected_at, message, ...) plus the case id; compact_verdicts.py turns it into the
committed verdict file.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import select
import signal
import sys
import time
from pathlib import Path

import check_argv  # noqa: E402  (sets sys.argv the way a plain `vllm serve` run sees it)
import oracle_common  # noqa: E402


def run_forked(parser, argv: list[str], kw: dict, timeout: float) -> dict:
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        gc.disable()  # a collection would touch (and copy) every inherited page
        os.close(rfd)
        code = 0
        try:
            data = json.dumps(check_argv.check_one(parser, argv, **kw), default=str).encode()
        except BaseException as e:  # noqa: BLE001
            data = json.dumps(
                {
                    "argv": argv,
                    "verdict": "oracle-error",
                    "stages": {},
                    "rejected_at": None,
                    "message": f"{type(e).__name__}: {e}",
                }
            ).encode()
            code = 1
        with os.fdopen(wfd, "wb") as w:
            w.write(data)
        os._exit(code)
    os.close(wfd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    with os.fdopen(rfd, "rb", buffering=0) as r:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = r.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if timed_out:
        return {
            "argv": argv,
            "verdict": "oracle-timeout",
            "stages": {},
            "rejected_at": None,
            "message": f"no answer within {timeout:.0f} s",
        }
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return {
            "argv": argv,
            "verdict": "oracle-error",
            "stages": {},
            "rejected_at": None,
            "message": "child produced no result",
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--deep", action="store_true", help="deep stages for every case")
    ap.add_argument(
        "--deep-origins",
        default="",
        help="comma-separated case origins that get the deep stages (others: "
        "parse .. engine_args only); e.g. recipe,late,late-ignored,handpicked",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="append to --out, skipping case ids already recorded there",
    )
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases (smoke test)")
    a = ap.parse_args(check_argv._REAL_ARGV[1:])

    opener = gzip.open if a.cases.suffix == ".gz" else open
    with opener(a.cases, "rt", encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    if a.limit:
        cases = cases[: a.limit]
    deep_origins = {o for o in a.deep_origins.split(",") if o}
    done: set[str] = set()
    if a.resume and a.out.is_file():
        done = {json.loads(line)["id"] for line in a.out.read_text().splitlines() if line}
    t0 = time.perf_counter()
    with oracle_common.capture_output():
        top, *_ = oracle_common.build_cli_parser()
        # warm-up on a throw-away parser (see check_argv.main)
        if a.deep or deep_origins or any(c.get("deep") for c in cases):
            warm, *_ = oracle_common.build_cli_parser()
            for fm in sorted({c.get("fake_model") or "llama" for c in cases}):
                try:
                    check_argv.check_one(
                        warm, ["serve", "m"], deep=True, fake_model=fm, include_namespace=False
                    )
                except Exception:  # noqa: BLE001
                    pass
    gc.collect()
    gc.freeze()  # keep the parent's objects out of the children's collections (copy-on-write)
    t_built = time.perf_counter()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("a" if a.resume else "w") as fh:
        for i, c in enumerate(cases):
            if c["id"] in done:
                continue
            deep = a.deep or bool(c.get("deep")) or c.get("origin") in deep_origins
            kw = dict(
                deep=deep, env=c.get("env"), include_namespace=False, fake_model=c.get("fake_model")
            )
            r = run_forked(top, ["serve", *c["argv"]], kw, a.timeout)
            r["id"] = c["id"]
            r["deep"] = deep
            r.pop("argv", None)
            fh.write(json.dumps(r, sort_keys=True, default=str) + "\n")
            fh.flush()
            if i % 250 == 0:
                print(f"[{i}/{len(cases)}] {time.perf_counter() - t_built:.0f} s", flush=True)
    meta = {
        "vllm_version": oracle_common.vllm_version(),
        "deep": a.deep or sorted(deep_origins),
        "cases": len(cases),
        "resumed_after": len(done),
        "build_s": round(t_built - t0, 1),
        "checks_s": round(time.perf_counter() - t_built, 1),
    }
    a.out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
