"""Benchmark servelint on this machine and print figures (median and spread).

    python bench/run.py            # full: 5 repetitions of each measurement
    python bench/run.py --quick    # 1 repetition, small inputs (CI keeps the script working)

Measures (wall time via a fresh process each run, peak RSS of that process):
  * ``servelint check`` of the recipes corpus and of the InferenceX corpus, cold (first run,
    empty result cache) and warm (repeated runs), and launches checked per second; text
    output, then JSON output (which adds each launch's ``works_on``), cold and warm;
  * one small file end to end (process start to exit);
  * building one release profile from a downloaded wheel (when the wheel is on disk);
  * the real-parser path per launch (the oracle's recorded verdict timing, or a live run
    when an oracle venv exists), and the ratio to servelint's per-launch time;
  * the floor: reading and YAML-composing the same recipe files with the C loader only.
No figure is asserted: benchmarks are not tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
RECIPES = SHARED / "corpus" / "vllm-recipes"
INFERENCEX = SHARED / "corpus" / "inferencex"
SMALL = ROOT / "examples" / "recipe" / "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
ORACLE_TIMING = SHARED / "tools" / "oracle" / "out"


def run_process(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, stdout) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    # ru_maxrss of the children reaped so far is a maximum, so use wait4 on our own child
    rss = _peak_rss_of(proc)
    return wall, rss, out


def _peak_rss_of(proc: subprocess.Popen) -> float:
    usage = getattr(proc, "_servelint_rusage", None)
    if usage is not None:
        return usage.ru_maxrss / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


class _Popen(subprocess.Popen):
    def _try_wait(self, wait_flags):  # record the child's own rusage
        try:
            pid, sts, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            pid, sts = self.pid, 0
            usage = None
        self._servelint_rusage = usage
        return (pid, sts)


subprocess.Popen = _Popen  # type: ignore[misc]


def stats(values: list[float]) -> str:
    if not values:
        return "n/a"
    med = statistics.median(values)
    spread = (max(values) - min(values)) if len(values) > 1 else 0.0
    return f"median {med:.3f} (min {min(values):.3f}, max {max(values):.3f}, spread {spread:.3f})"


def servelint_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "servelint.cli", *args]


def bench_check(label: str, path: Path, reps: int) -> float | None:
    """Text output (what CI and pre-commit run), cold then warm; then JSON output, which also
    computes each launch's ``works_on`` (extra checks on other releases), cold then warm."""
    if not path.exists():
        print(f"{label}: skipped ({path} not found)")
        return None
    walls, rsss = [], []
    cache = tempfile.mkdtemp(prefix="servelint-bench-cache-")
    os.environ["SERVELINT_CACHE_DIR"] = cache  # the first run fills it: cold, then warm
    for i in range(reps + 1):  # the first run is the cold one
        wall, rss, _ = run_process(servelint_cmd("check", str(path), "--output", os.devnull))
        if i == 0:
            print(f"{label} cold: {wall:.3f} s, peak {rss:.0f} MiB")
        else:
            walls.append(wall)
            rsss.append(rss)
    json_cmd = servelint_cmd("check", str(path), "--format", "json")
    cold, cold_rss, _ = run_process(json_cmd)
    warm, warm_rss, out = run_process(json_cmd)
    try:
        launches = int(json.loads(out).get("stats", {}).get("launches", 0))
    except ValueError:
        launches = 0
    print(
        f"{label} JSON with works_on: cold {cold:.3f} s, peak {cold_rss:.0f} MiB; "
        f"warm {warm:.3f} s, peak {warm_rss:.0f} MiB"
    )
    if walls:
        med = statistics.median(walls)
        print(
            f"{label} warm: {stats(walls)} s; peak {max(rsss):.0f} MiB; {launches} launches, "
            f"{launches / med:.0f} launches/s"
        )
        return med / launches if launches else None
    return None


# The small file's floor: Python start + the C YAML compose of that file + loading one
# profile (the newest vLLM release's), in a process of its own.
FLOOR_CODE = (
    "import gzip, json, sys, yaml\n"
    "yaml.compose(open(sys.argv[1], encoding='utf-8'), Loader=yaml.CSafeLoader)\n"
    "json.loads(gzip.decompress(open(sys.argv[2], 'rb').read()))\n"
)


def run_cpu_wall(cmd: list[str]) -> tuple[float, float]:
    """(user+sys seconds, wall seconds) of one child process, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.wait()
    wall = time.perf_counter() - start
    usage = getattr(proc, "_servelint_rusage", None)
    return (usage.ru_utime + usage.ru_stime if usage else float("nan")), wall


def newest_profile(engine: str = "vllm") -> Path:
    from servelint import profiles

    return profiles.folder(engine) / f"{profiles.newest(engine)}.json.gz"


def bench_small(reps: int) -> None:
    """The small file without cache and its floor, sides alternating in one loop (absolute
    times vary 2-3x with the machine's load; their ratio much less)."""
    floor_cmd = [sys.executable, "-c", FLOOR_CODE, str(SMALL), str(newest_profile())]
    check_cmd = servelint_cmd("check", str(SMALL), "--no-cache")
    floor, cold = [], []
    for _ in range(max(reps, 3)):
        floor.append(run_cpu_wall(floor_cmd))
        cold.append(run_cpu_wall(check_cmd))
    run_process(servelint_cmd("check", str(SMALL)))  # fills the cache
    warm = [run_process(servelint_cmd("check", str(SMALL)))[0] for _ in range(reps)]
    print(
        f"one small file end to end: {stats(warm)} s (unchanged file, cached); "
        f"{stats([w for _, w in cold])} s (--no-cache)"
    )
    med = {
        name: (statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs))
        for name, runs in (("floor", floor), ("check", cold))
    }
    (fc, fw), (cc, cw) = med["floor"], med["check"]
    print(
        f"one small file --no-cache against its floor (python start + C YAML compose of the "
        f"file + one profile loaded), medians of {len(cold)}: user+sys {cc:.3f} s vs "
        f"{fc:.3f} s ({cc / fc:.2f}x), wall {cw:.3f} s vs {fw:.3f} s ({cw / fw:.2f}x)"
    )


def bench_yaml_floor(reps: int) -> None:
    import yaml

    files = sorted((RECIPES / "models").glob("*/*.yaml")) if RECIPES.exists() else []
    if not files:
        print("yaml-compose floor: skipped (no recipes corpus)")
        return
    code = (
        "import sys, yaml\n"
        "for p in sys.argv[1:]:\n"
        "    yaml.compose(open(p, encoding='utf-8'), Loader=yaml.CSafeLoader)\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    walls = [run_process([sys.executable, fh.name, *map(str, files)])[0] for _ in range(reps)]
    os.unlink(fh.name)
    print(
        f"yaml-compose floor ({len(files)} recipe files, C loader, process start to exit): "
        f"{stats(walls)} s (yaml {yaml.__version__})"
    )


def bench_profile_build(reps: int) -> None:
    from servelint.builders.build import build_from_wheel
    from servelint.builders.wheel import find_cached

    wheel = find_cached(
        "vllm", "0.21.0", Path("/tmp/wheels/vllm"), Path("/tmp/servelint-wheels/vllm")
    )
    if wheel is None:
        print(
            "profile build: skipped (no vllm 0.21.0 wheel on disk; "
            "pip download --no-deps --only-binary :all: vllm==0.21.0 -d /tmp/wheels/vllm)"
        )
        return
    walls = []
    for _ in range(reps):
        start = time.perf_counter()
        build_from_wheel("vllm", wheel)
        walls.append(time.perf_counter() - start)
    print(f"profile build vllm 0.21.0 from the downloaded wheel: {stats(walls)} s")


def real_parser_per_launch() -> float | None:
    """Seconds per launch of the real parser, process start to verdict (oracle timing)."""
    figures = []
    for timing in sorted(ORACLE_TIMING.glob("*/timing.json")):
        try:
            data = json.loads(timing.read_text())
        except ValueError:
            continue
        runs = (data.get("wall_seconds") or {}).get("parse_and_post_parse_stages") or []
        figures.extend(float(x) for x in runs if isinstance(x, (int, float)))
    if not figures:
        return None
    med = statistics.median(figures)
    print(
        f"real-parser path per launch (oracle, process start to verdict, recorded on this "
        f"machine kind): {stats(figures)} s"
    )
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one repetition, small inputs")
    args = ap.parse_args()
    reps = 1 if args.quick else 5
    print(
        f"servelint benchmark ({'quick' if args.quick else 'full'}), {os.cpu_count()} cores, "
        f"python {sys.version.split()[0]}"
    )
    bench_small(reps)
    if args.quick:
        per_launch = bench_check("examples", ROOT / "examples", reps)
    else:
        per_launch = bench_check("recipes corpus", RECIPES, reps)
        bench_check("InferenceX corpus", INFERENCEX, reps)
        bench_yaml_floor(reps)
        bench_profile_build(1)
    real = real_parser_per_launch()
    if real and per_launch:
        print(
            f"servelint per launch (warm, whole run / launches): {per_launch * 1000:.3f} ms; "
            f"ratio real parser / servelint: {real / per_launch:,.0f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
