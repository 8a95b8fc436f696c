"""Worst-case time and memory of ``servelint check`` on every bad input, one fresh process each.

    python bench/robustness.py [--timeout 120] [--only NAME,...] [--json FILE] [--fuzz N]

Prints, per input, the exit code, wall time, peak RSS of the process and whether the expected
finding was there (and, for the output-injection cases, whether the output was safe); then the
worst figures and the crash count (a crash: exit code other than 0/1, a traceback, the timeout,
a wrong exit code or unsafe output). Exit status 1 when anything crashed. ``--fuzz N`` also runs
N mutated inputs through the readers (the long version of the bounded run in the tests).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
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


TIME = "/usr/bin/time"
# issue 33: each case within 10 s and 500 MB on the 2-core machine; the seconds are CPU
# seconds (user + system): the machine is shared, so wall time measures the other jobs too
# (a hang still ends at --timeout, wall)
LIMIT_SECONDS = 10.0
LIMIT_MB = 500


def _kill_checker(pid: int) -> None:
    """Kill the checker under ``/usr/bin/time`` (which then still reports its peak RSS), or
    the whole process group."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            children = [int(c) for c in fh.read().split()]
    except OSError:
        children = []
    for child in children:
        os.kill(child, signal.SIGKILL)
    if not children:
        os.killpg(pid, signal.SIGKILL)


def run_one(case, path: Path, timeout: float) -> dict:
    """Exit code, wall seconds, peak RSS (MB) and output of one fresh ``servelint check``."""
    env = dict(os.environ)
    corpus = sys.modules["bad_inputs"]
    marker = corpus.plant_cache(case, path, env) if case.cache else None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile() as peak:
        argv = corpus.command(case, path)
        if case.unprivileged:  # permissions mean nothing to root
            argv = corpus.unprivileged(argv)
        if os.path.exists(TIME):  # the peak RSS of the checker alone, not of this process
            argv = [TIME, "-q", "-f", "%M", "-o", peak.name, *argv]
        before = _bytes_of(path)
        here = os.getcwd()
        os.chdir(path.parent if case.relative else here)
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, env, setsid=True, file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)])
        os.chdir(here)
        timed_out = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() - t0 > timeout:
                _kill_checker(pid)
                _, status, usage = os.wait4(pid, 0)
                timed_out = True
                break
            time.sleep(0.02)
        rss_kb = usage.ru_maxrss
        peak.seek(0)
        figure = peak.read().decode().strip().splitlines()
        if figure and figure[-1].isdigit():
            rss_kb = int(figure[-1])
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        raw = out.read(64 * 1024 * 1024)
        out.seek(0, os.SEEK_END)
        stdout = raw.decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        return {"rc": None if timed_out else os.waitstatus_to_exitcode(status),
                "seconds": seconds, "rss_mb": rss_kb / 1024, "stdout": stdout,
                "cpu": usage.ru_utime + usage.ru_stime,
                "stderr": stderr, "timed_out": timed_out, "out_mb": out.tell() / 1024 / 1024,
                "unsafe": corpus.unsafe_output(case, raw) if case.safe_output else "",
                "pwned": bool(marker and marker.exists()),
                "changed": before is not None and _bytes_of(path) != before}


def _bytes_of(path: Path) -> bytes | None:
    """The bytes of a regular input file (None for a folder, FIFO or unreadable file)."""
    try:
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


def build_in_child(root: Path, cases: list) -> list:
    """Build the inputs in a child process: a child's peak RSS counts its parent's image at
    fork, so the bench itself must never hold the 50 MB inputs."""
    proc = subprocess.run([sys.executable, __file__, "--build-into", str(root), "--only",
                           ",".join(c.name for c in cases)], capture_output=True, text=True,
                          check=True)
    paths = dict(json.loads(proc.stdout))
    corpus = sys.modules["bad_inputs"]
    return [corpus.BuiltInput(c, Path(paths[c.name])) for c in cases]


def expected_found(case, path: Path, stdout: str) -> bool | None:
    if case.expect is None and case.any_code is None:
        return None
    try:
        findings = json.loads(stdout)["findings"]
    except (ValueError, KeyError):
        return False
    if case.any_code is not None:
        return any(re.search(case.any_code, f["message"]) for f in findings)
    return any(f["code"] == "SL001" and re.search(case.expect, f["message"]) for f in findings)


def problems(case, r: dict) -> list[str]:
    """What went wrong on one input (empty: it held)."""
    out = []
    if r["timed_out"]:
        out.append("timeout")
    elif r["rc"] not in (0, 1) and not r["rc"] == case.rc == 2:  # 2: a stated usage error
        out.append(f"exit {r['rc']}")
    elif case.rc is not None and r["rc"] != case.rc:
        out.append(f"exit {r['rc']}, expected {case.rc}")
    if "Traceback" in r["stderr"]:
        out.append(r["stderr"].strip().splitlines()[-1][:80])
    if r["unsafe"]:
        out.append("unsafe output: " + r["unsafe"])
    if r["pwned"]:
        out.append("cache entry ran code")
    if r["changed"]:
        out.append("the input file was changed")
    if r["cpu"] > LIMIT_SECONDS:
        out.append(f"over {LIMIT_SECONDS:g} s of CPU")
    if r["rss_mb"] > LIMIT_MB:
        out.append(f"over {LIMIT_MB} MB")
    if case.stderr is not None and not re.search(case.stderr, r["stderr"]):
        out.append(f"standard error does not say {case.stderr!r}")
    out += _issue33_checks(case, r)
    if case.launches is not None and not case.args and not r["timed_out"]:
        try:
            launches = len(json.loads(r["stdout"])["launches"])
        except (ValueError, KeyError):
            launches = None
        if launches != case.launches:
            out.append(f"{launches} launches, expected {case.launches}")
    return out


def _issue33_checks(case, r: dict) -> list[str]:
    """A rule's finding count and a launch's argv word (issue 33's cases)."""
    if case.count is None and case.argv_has is None:
        return []
    try:
        out = json.loads(r["stdout"])
    except ValueError:
        return ["no JSON report"]
    bad = []
    if case.count is not None:
        code, n = case.count
        got = sum(1 for f in out["findings"] if f["code"] == code)
        if got != n:
            bad.append(f"{got} {code} findings, expected {n}")
    if case.argv_has is not None and not any(case.argv_has in lr["argv"]
                                             for lr in out["launches"]):
        bad.append(f"no launch argv holds {case.argv_has!r}")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", help="comma-separated case names (issue33: that issue's cases)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON to this file")
    ap.add_argument("--fuzz", type=int, default=0, help="mutated inputs to run afterwards")
    ap.add_argument("--build-into", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    corpus = load_corpus()
    cases = list(corpus.CASES) + bench_only_cases(corpus)
    if not os.path.exists("/dev/zero"):
        cases = [c for c in cases if c.name != "device_symlink"]
    if args.only:
        names = set(args.only.split(","))
        if "issue33" in names:
            names |= {c.name for c in corpus.ISSUE33}
        cases = [c for c in cases if c.name in names]
    if args.build_into:
        print(json.dumps([[b.case.name, str(b.path)] for b in corpus.build(args.build_into,
                                                                              cases)]))
        return 0
    crashes, missing = [], []
    worst_t = worst_m = (0.0, "")
    rows = []
    with tempfile.TemporaryDirectory(prefix="servelint-robustness-") as tmp:
        built = build_in_child(Path(tmp), cases)
        print(f"{'input':34} {'rc':>3} {'seconds':>8} {'CPU s':>6} {'peak MB':>8} {'out MB':>7}"
              "  finding")
        for b in built:
            r = run_one(b.case, b.path, args.timeout)
            found = expected_found(b.case, b.path, r["stdout"])
            bad = problems(b.case, r)
            if bad:
                crashes.append(b.case.name)
            if found is False:
                missing.append(b.case.name)
            mark = {None: "-", True: "yes", False: "MISSING"}[found]
            rc = "T/O" if r["timed_out"] else str(r["rc"])
            print(f"{b.case.name:34} {rc:>3} {r['seconds']:8.2f} {r['cpu']:6.2f} {r['rss_mb']:8.1f} "
                  f"{r['out_mb']:7.1f}  {mark}" + ("  FAIL: " + "; ".join(bad) if bad else ""),
                  flush=True)
            rows.append({"name": b.case.name, "rc": rc, "seconds": round(r["seconds"], 2),
                         "cpu": round(r["cpu"], 2),
                         "rss_mb": round(r["rss_mb"], 1), "out_mb": round(r["out_mb"], 1),
                         "found": found, "problems": bad})
            worst_t = max(worst_t, (r["seconds"], b.case.name))
            worst_m = max(worst_m, (r["rss_mb"], b.case.name))
        subprocess.run(["rm", "-rf", tmp], check=False)  # a 1,100-level tree: no rmtree
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"\n{len(built)} inputs; worst time {worst_t[0]:.2f} s ({worst_t[1]}); "
          f"worst peak RSS {worst_m[0]:.1f} MB ({worst_m[1]}); crashes {len(crashes)}"
          + (f" {crashes}" if crashes else "") + f"; expected finding missing {len(missing)}"
          + (f" {missing}" if missing else ""))
    fuzz_failures = run_fuzz(args.fuzz) if args.fuzz else 0
    return 1 if crashes or missing or fuzz_failures else 0


def run_fuzz(count: int) -> int:
    """``count`` mutated inputs through the readers (tests/fuzz_mutations.py)."""
    sys.path.insert(0, str(REPO / "tests"))
    import fuzz_mutations

    t0 = time.perf_counter()
    failures = fuzz_mutations.run(count, seed=int(os.environ.get("SERVELINT_FUZZ_SEED", "1")))
    print(f"\nfuzz: {count} mutated inputs in {time.perf_counter() - t0:.1f} s, "
          f"{len(failures)} failures" + "".join(f"\n  {f}" for f in failures[:20]))
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
