"""Time (or profile) servelint's readers alone on the shared corpora.

    python bench/profile_readers.py                 # CPU and wall seconds of each reader
    python bench/profile_readers.py --profile recipes   # cProfile top functions of one reader

Readers: ``recipes`` (recipe_render.render of every recipe), ``guides`` (read_recipe_guide
of every recipe, given its renderings), ``inferencex`` (read_inferencex of the corpus root).
CPU seconds (process time) are reported next to wall seconds because the machine is shared.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def recipe_paths() -> list[str]:
    from servelint.pipeline.discover import discover
    from servelint.pipeline.options import Options

    return [j.path for j in discover([str(CORPUS / "vllm-recipes")], Options())
            if j.reader is not None and j.reader.name == "recipe"]


def run_recipes(paths: list[str]) -> int:
    from servelint.sources.recipe.render import render

    return sum(len(render(p).renderings) for p in paths)


def run_guides(paths: list[str]) -> int:
    from servelint.sources.recipe.guide import read_recipe_guide
    from servelint.sources.recipe.render import render

    wall = cpu = 0.0
    n = 0
    for p in paths:  # as the check pipeline does: render, then read the guide
        renderings = render(p).renderings
        t0, c0 = time.perf_counter(), time.process_time()
        n += len(read_recipe_guide(p, renderings).launches)
        wall, cpu = wall + time.perf_counter() - t0, cpu + time.process_time() - c0
    print(f"{'guides (rendering excluded)':28s} wall {wall:7.2f} s  cpu {cpu:7.2f} s  "
          f"items {n}  load {os.getloadavg()[0]:.2f}")
    return n


def run_inferencex(_: list[str]) -> int:
    from servelint.sources.inferencex.reader import read_inferencex

    return len(read_inferencex(str(CORPUS / "inferencex")).launches)


READERS: dict[str, Callable[[list[str]], int]] = {
    "recipes": run_recipes, "guides": run_guides, "inferencex": run_inferencex,
}


def _report(name: str, t0: float, c0: float, n: int) -> None:
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{name:28s} wall {wall:7.2f} s  cpu {cpu:7.2f} s  items {n}  "
          f"load {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readers", nargs="*", default=list(READERS), choices=list(READERS))
    ap.add_argument("--profile", action="store_true", help="cProfile instead of timing")
    ap.add_argument("--top", type=int, default=35)
    args = ap.parse_args()
    paths = recipe_paths()
    for name in args.readers:
        fn = READERS[name]
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(fn, paths)
            pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        n = fn(paths)
        if name != "guides":
            _report(name, t0, c0, n)


if __name__ == "__main__":
    main()
