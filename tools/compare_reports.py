#!/usr/bin/env python3
"""Record servelint's reports on the reference inputs, and compare two recordings.

    python tools/compare_reports.py record DIR      # run every reference command into DIR
    python tools/compare_reports.py diff OLD NEW    # byte comparison, timings and the
                                                    # checkout's and corpus' folders aside

A refactor that promises "the same verdicts" records before and after and diffs: every
report must be byte-identical once timing fields are blanked. The reference commands are
the corpora under ../shared/corpus (recipes, InferenceX, the two seeds with the flags
their incidents give) and examples/, in JSON and text, each without the result cache,
plus the conformance agreement tallies.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# SERVELINT_CORPUS: the corpus seen from elsewhere (a worktree recording against a baseline)
CORPUS = Path(os.environ.get("SERVELINT_CORPUS") or ROOT.parent / "shared" / "corpus")
SEEDS = CORPUS / "seeds"

COMMANDS: dict[str, list[str]] = {
    "recipes": [str(CORPUS / "vllm-recipes")],
    "inferencex": [str(CORPUS / "inferencex")],
    "seed-recipe": [str(SEEDS / "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml")],
    "seed-launcher-b300": [
        str(SEEDS / "dsr1_fp4_b300_vllm.sh"),
        "--image",
        "vllm/vllm-openai:v0.21.0",
        "--gpu",
        "b300",
    ],
    "seed-launcher-h100": [
        str(SEEDS / "dsr1_fp4_b300_vllm.sh"),
        "--image",
        "vllm/vllm-openai:v0.21.0",
        "--gpu",
        "h100",
    ],
    "seed-master": [str(SEEDS / "nvidia-master-at-895c106.yaml")],
    "examples": [str(ROOT / "examples")],
    "recipes-target-0.33.0": [str(CORPUS / "vllm-recipes"), "--target-version", "vllm==0.33.0"],
}
FORMATS = ("json", "text")
TIMING = re.compile(r'"(elapsed|seconds|duration|wall)[a-z_]*": ?[0-9.e+-]+')


def record(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, args in COMMANDS.items():
        for fmt in FORMATS:
            if fmt == "text" and name.startswith("recipes-target"):
                continue
            cmd = ["servelint", "check", *args, "--format", fmt, "--no-cache"]
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            body = TIMING.sub(lambda m: f'"{m.group(1)}": 0', proc.stdout)
            (out / f"{name}.{fmt}").write_text(f"exit {proc.returncode}\n{body}")
            print(f"{name}.{fmt}: exit {proc.returncode}, {len(body)} bytes", flush=True)
    tallies = subprocess.run(
        [sys.executable, "-c", _TALLY],
        capture_output=True,
        text=True,
        cwd=ROOT / "tests" / "conformance",
    )
    (out / "conformance.txt").write_text(tallies.stdout + tallies.stderr)
    print("conformance:", tallies.stdout.strip().replace("\n", "; "))


_TALLY = """
from agreement import CHECKS, compare, iter_releases
for version, profile in iter_releases():
    tallies, found = compare(profile, version)
    for check in CHECKS:
        t = tallies[check]
        print(version, check, t.agree, "/", t.cases)
    print(version, "disagreements", sorted(d.key for d in found))
"""


# where the checkout and the corpus sit differs between recordings (another worktree)
_PLACES = [
    (re.compile(r"/[^\s\"':]*?/shared/corpus/"), "<corpus>/"),
    (re.compile(r"/[^\s\"':]*?/examples/"), "<repo>/examples/"),
]


def _placeless(text: str) -> str:
    for pattern, name in _PLACES:
        text = pattern.sub(name, text)
    return text


def diff(old: Path, new: Path) -> int:
    differing = 0
    for path in sorted(old.iterdir()):
        other = new / path.name
        if not other.is_file():
            print(f"{path.name}: missing in {new}")
            differing += 1
            continue
        a, b = _placeless(path.read_text()), _placeless(other.read_text())
        if a == b:
            print(f"{path.name}: identical")
            continue
        differing += 1
        lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0))
        print(f"{path.name}: DIFFERS ({len(lines)} diff lines)")
        for line in lines[:20]:
            print("   ", line[:200])
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("record").add_argument("dir", type=Path)
    d = sub.add_parser("diff")
    d.add_argument("old", type=Path)
    d.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.cmd == "record":
        record(args.dir)
        return 0
    return diff(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
