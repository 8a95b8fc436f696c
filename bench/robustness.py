"""Worst-case time and memory of ``servelint check`` on every bad input, one fresh process each.

    python bench/robustness.py [--timeout 120] [--only NAME,...]

Prints, per input, the exit code, wall time, peak RSS of the process and whether the expected
read-error (SL001) finding was there; then the worst figures and the crash count (a crash: exit
code other than 0/1, a traceback, or the timeout). Exit status 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS_FILE = REPO / "tests" / "cases" / "bad_inputs" / "bad_inputs.py"


def load_corpus():
    spec = importlib.util.spec_from_file_location("bad_inputs", CORPUS_FILE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bad_inputs"] = module
    spec.loader.exec_module(module)
    return module


def bench_only_cases(corpus) -> list:
    """Inputs too slow for the test suite: just under the readers' size limits."""
    mb = corpus.MB
    write, huge, case = corpus._write, corpus._huge, corpus.BadInput
    return [
        case("script_just_under_bash_limit", write("under.sh", huge(
            b"#!/bin/bash\n", b"X=$((X+1)); echo \"$X\" | tr a b\n", b"vllm serve org/m\n",
            int(1.9 * mb))), None),
        case("huge_argv_bash_20k", write("argv20k.sh", corpus._huge_argv_script(20_000)), None),
        case("huge_argv_recipe_20k", write("models/org/argv20k.yaml",
                                           corpus._huge_argv_recipe(20_000)), None),
        case("recipe_just_under_file_limit", write("models/org/under.yaml", huge(
            b"model:\n  model_id: org/m\n  base_args:\n", b'    - "--enforce-eager"\n',
            b"variants:\n  default:\n    precision: bf16\ncompatible_strategies:\n"
            b"  - single_node_tp\n", int(7.9 * mb))), None),
    ]


def run_one(path: Path, timeout: float) -> dict:
    """Exit code, wall seconds, peak RSS (MB) and output of one fresh ``servelint check``."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        pid = os.posix_spawn(sys.executable, [
            sys.executable, "-m", "servelint.cli", "check", "--no-cache", "-j1",
            "--format", "json", str(path)], os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)])
        timed_out = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() - t0 > timeout:
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                timed_out = True
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return {"rc": None if timed_out else os.waitstatus_to_exitcode(status), "seconds": seconds,
            "rss_mb": usage.ru_maxrss / 1024, "stdout": stdout, "stderr": stderr,
            "timed_out": timed_out}


def build_in_child(root: Path, cases: list) -> list:
    """Build the inputs in a child process: a child's peak RSS counts its parent's image at
    fork, so the bench itself must never hold the 50 MB inputs."""
    import subprocess

    proc = subprocess.run([sys.executable, __file__, "--build-into", str(root), "--only",
                           ",".join(c.name for c in cases)], capture_output=True, text=True,
                          check=True)
    paths = dict(json.loads(proc.stdout))
    corpus = sys.modules["bad_inputs"]
    return [corpus.BuiltInput(c, Path(paths[c.name])) for c in cases]


def expected_found(case, path: Path, stdout: str) -> bool | None:
    if case.expect is None:
        return None
    try:
        findings = json.loads(stdout)["findings"]
    except (ValueError, KeyError):
        return False
    return any(f["code"] == "SL001" and re.search(case.expect, f["message"]) and
               os.path.abspath(f["path"]) == os.path.abspath(path) for f in findings)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--build-into", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    corpus = load_corpus()
    cases = list(corpus.CASES) + bench_only_cases(corpus)
    if not os.path.exists("/dev/zero"):
        cases = [c for c in cases if c.name != "device_symlink"]
    if args.only:
        names = set(args.only.split(","))
        cases = [c for c in cases if c.name in names]
    if args.build_into:
        print(json.dumps([[b.case.name, str(b.path)] for b in corpus.build(args.build_into,
                                                                              cases)]))
        return 0
    crashes, missing = [], []
    worst_t = worst_m = (0.0, "")
    with tempfile.TemporaryDirectory(prefix="servelint-robustness-") as tmp:
        built = build_in_child(Path(tmp), cases)
        print(f"{'input':34} {'rc':>3} {'seconds':>8} {'peak MB':>8}  SL001")
        for b in built:
            r = run_one(b.path, args.timeout)
            found = expected_found(b.case, b.path, r["stdout"])
            crashed = r["timed_out"] or r["rc"] not in (0, 1) or "Traceback" in r["stderr"]
            if crashed:
                crashes.append(b.case.name)
            if found is False:
                missing.append(b.case.name)
            mark = {None: "-", True: "yes", False: "MISSING"}[found]
            rc = "T/O" if r["timed_out"] else str(r["rc"])
            print(f"{b.case.name:34} {rc:>3} {r['seconds']:8.2f} {r['rss_mb']:8.1f}  {mark}"
                  + ("  CRASH: " + r["stderr"].strip().splitlines()[-1][:80]
                     if crashed and r["stderr"].strip() else ""), flush=True)
            worst_t = max(worst_t, (r["seconds"], b.case.name))
            worst_m = max(worst_m, (r["rss_mb"], b.case.name))
    print(f"\n{len(built)} inputs; worst time {worst_t[0]:.2f} s ({worst_t[1]}); "
          f"worst peak RSS {worst_m[0]:.1f} MB ({worst_m[1]}); crashes {len(crashes)}"
          + (f" {crashes}" if crashes else "") + f"; expected finding missing {len(missing)}"
          + (f" {missing}" if missing else ""))
    return 1 if crashes or missing else 0


if __name__ == "__main__":
    sys.exit(main())
