"""Mutation fuzzing of real corpus files (a tool, not a CI test): each input is one corpus file
(launcher, recipe, master config, guide, manifest) mutated in place inside a scratch copy of
its checkout, then checked and rendered in every format by a worker process.

    python tools/fuzz_corpus.py [--count 5000] [--seed 1] [--corpus DIR] [--limit 10]

Per input the worker reports the exception (a traceback counts as an exit 2), the output
properties of ``tests/fuzz_mutations.problems_with`` and its CPU seconds; the parent measures
the wall time, kills a worker still busy after ``--kill`` seconds (counted as a timeout) and
records the worker's peak RSS. The summary gives the counts the issue asks for: exceptions,
inputs over ``--limit`` seconds (wall and CPU), timeouts, the peak RSS. Master configs are cut
to their first three entries before mutation (a whole one binds ~300 launchers: 12 s of CPU
unmutated), so every input is one bounded check.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = (".sh", ".yaml", ".yml", ".md")
EXTRA = [b"\xff", b"\x00", b"\xc3(", b"\xef\xbb\xbf", b"\r\n", b"&a [*a, *a]\n", b"<<'EOF'\n"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """``fuzz_mutations.mutate`` (hostile pieces, cuts, repeated lines) plus raw bytes."""
    sys.path.insert(0, str(REPO / "tests"))
    import fuzz_mutations

    data = fuzz_mutations.mutate(data, rng)
    if rng.random() < 0.3:
        at = rng.randint(0, len(data))
        data = data[:at] + rng.choice(EXTRA) + data[at:]
    return data


def first_entries(data: bytes, keep: int = 3) -> bytes:
    """A master config cut to its first ``keep`` top-level entries."""
    out, entries = [], 0
    for line in data.split(b"\n"):
        if line[:1] not in (b" ", b"\t", b"#", b"") and b":" in line:
            entries += 1
            if entries > keep:
                break
        out.append(line)
    return b"\n".join(out) + b"\n"


def worker() -> None:
    """Read paths on stdin, one per line; answer one JSON line each."""
    import resource

    sys.path.insert(0, str(REPO / "tests"))
    import fuzz_mutations

    from servelint import reporters
    from servelint.check import Options, check_paths

    for line in sys.stdin:
        path = line.rstrip("\n")
        cpu0 = time.process_time()
        problems, launches = [], 0
        try:
            report = check_paths([path], Options(use_cache=False, jobs=1))
            launches = len(report.launches)
            problems += [f"internal error finding: {f.message[:150]}" for f in report.findings
                         if "internal" in f.message and "error" in f.message]
            outputs = {}
            for fmt in reporters.FORMATS:
                stream = io.StringIO()
                extra = ({"launches": [lr.summary for lr in report.launches]}
                         if fmt == "json" else None)
                reporters.render(report.findings, fmt, stream=stream,
                                 files_checked=report.files, extra=extra, color=False)
                outputs[fmt] = stream.getvalue()
            problems += fuzz_mutations.problems_with(outputs)
        except Exception as exc:  # the property under test: nothing escapes
            problems.append(f"exception {type(exc).__name__}: {exc}"[:200])
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"problems": problems, "cpu": time.process_time() - cpu0,
                          "rss_mb": peak, "launches": launches}), flush=True)


class Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def check(self, path: Path, kill_after: float) -> dict | None:
        """The worker's answer, or None when it did not answer in time (then killed)."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        os.set_blocking(self.proc.stdout.fileno(), False)
        deadline = time.monotonic() + kill_after
        buf = ""
        while time.monotonic() < deadline:
            chunk = self.proc.stdout.readline()
            if chunk:
                buf += chunk
                if buf.endswith("\n"):
                    return json.loads(buf)
            elif self.proc.poll() is not None:
                return {"problems": [f"worker died: exit {self.proc.returncode}"], "cpu": 0,
                        "rss_mb": 0}
            else:
                time.sleep(0.01)
        self.proc.kill()
        self.proc.wait()
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                  and p.stat().st_size < 2_000_000)


def run(count: int, seed: int, corpus: Path, limit: float, kill_after: float) -> dict:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="servelint-fuzz-corpus-") as tmp:
        copy = Path(tmp) / "corpus"
        shutil.copytree(corpus, copy, symlinks=True)
        files = corpus_files(copy)
        for master in copy.rglob("*-master.yaml"):
            master.write_bytes(first_entries(master.read_bytes()))
        stats = {"inputs": 0, "exceptions": [], "unsafe": [], "over_limit_wall": [],
                 "over_limit_cpu": [], "timeouts": [], "peak_rss_mb": 0.0, "wall": 0.0,
                 "with_launches": 0, "launches": 0, "cpu": 0.0, "max_cpu": 0.0}
        work = Worker()
        t0 = time.monotonic()
        try:
            for n in range(count):
                path = rng.choice(files)
                original = path.read_bytes()
                path.write_bytes(mutate(original, rng))
                start = time.monotonic()
                answer = work.check(path, kill_after)
                wall = time.monotonic() - start
                path.write_bytes(original)
                name = f"{n}:{path.relative_to(copy)}"
                stats["inputs"] += 1
                if answer is None:
                    stats["timeouts"].append(name)
                    work = Worker()
                    continue
                for problem in answer["problems"]:
                    fmt = problem.split(":", 1)[0]
                    kind = "unsafe" if fmt in ("text", "json", "sarif", "github") else "exceptions"
                    stats[kind].append(f"{name}: {problem}")
                if wall > limit:
                    stats["over_limit_wall"].append(f"{name} {wall:.1f} s")
                if answer["cpu"] > limit:
                    stats["over_limit_cpu"].append(f"{name} {answer['cpu']:.1f} s")
                stats["peak_rss_mb"] = max(stats["peak_rss_mb"], answer["rss_mb"])
                stats["with_launches"] += answer.get("launches", 0) > 0
                stats["launches"] += answer.get("launches", 0)
                stats["cpu"] += answer["cpu"]
                stats["max_cpu"] = max(stats["max_cpu"], answer["cpu"])
                if (n + 1) % 250 == 0:
                    print(f"{n + 1} inputs, {time.monotonic() - t0:.0f} s", file=sys.stderr,
                          flush=True)
        finally:
            work.close()
        stats["wall"] = time.monotonic() - t0
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", type=Path,
                    default=Path(os.environ.get("SERVELINT_CORPUS", "/work/shared/corpus")))
    ap.add_argument("--limit", type=float, default=10.0, help="seconds an input may take")
    ap.add_argument("--kill", type=float, default=60.0, help="seconds before a kill")
    ap.add_argument("--json", type=Path, help="write the summary here too")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    stats = run(args.count, args.seed, args.corpus, args.limit, args.kill)
    if args.json:
        args.json.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    print(f"{stats['inputs']} mutated corpus files in {stats['wall']:.0f} s: "
          f"{len(stats['exceptions'])} exceptions (exit 2), {len(stats['unsafe'])} unsafe "
          f"outputs, {len(stats['timeouts'])} timeouts (> {args.kill:g} s, killed), "
          f"{len(stats['over_limit_wall'])} over {args.limit:g} s wall, "
          f"{len(stats['over_limit_cpu'])} over {args.limit:g} s CPU; worker peak RSS "
          f"{stats['peak_rss_mb']:.0f} MB; {stats['with_launches']} inputs with launches "
          f"({stats['launches']} launches), CPU {stats['cpu']:.0f} s in all, "
          f"{stats['max_cpu']:.1f} s at most")
    for key in ("exceptions", "unsafe", "timeouts", "over_limit_cpu", "over_limit_wall"):
        for item in stats[key][:15]:
            print(f"  {key}: {item}")
    bad = stats["exceptions"] or stats["unsafe"] or stats["timeouts"] or stats["over_limit_cpu"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
