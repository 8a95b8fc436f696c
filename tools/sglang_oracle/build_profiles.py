"""Build SGLang release profiles from downloaded wheels and print per-release numbers.

    python tools/sglang_oracle/build_profiles.py [--out DIR] [VERSION ...]

Wheels are taken from /tmp/wheels/sglang (`pip download --no-deps --only-binary :all:`).
Without --out the profiles go to src/servelint/profiles/data/sglang/.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from servelint import profiles
from servelint.builders.build import build_from_wheel
from servelint.builders.sglang import parser as sglang_parser
from servelint.builders.wheel import WheelSource

WHEELS = Path("/tmp/wheels/sglang")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--parser-only", action="store_true",
                    help="recompute only the parser sections of existing profiles")
    ap.add_argument("versions", nargs="*")
    args = ap.parse_args()
    wheels = sorted(WHEELS.glob("sglang-*.whl"))
    from packaging.version import Version

    by_version = {w.name.split("-")[1]: w for w in wheels}
    versions = args.versions or sorted(by_version, key=Version)
    print("version shape options accepted_strings deprecated env_registry removed_env gates tied seconds")
    for v in versions:
        start = time.perf_counter()
        existing = profiles.load("sglang", v) if args.parser_only and not args.out else None
        if existing is not None:
            data = dict(existing.data)
            data.update(sglang_parser.extract(WheelSource(by_version[v]), data))
        else:
            data = build_from_wheel("sglang", by_version[v])
        secs = time.perf_counter() - start
        profiles.write(data, "sglang", v, args.out)
        acts = [a for a in data["parser"]["actions"] if a["dest"] != "help"]
        print(v, data["parser"]["shape"], len(acts), sum(len(a["accepted"]) for a in acts),
              sum(1 for a in acts if a["deprecated"]), len(data["env"]["registry"]),
              len(data["env"]["removed_hints"]), len(data["gates"]),
              sum(1 for g in data["gates"] if g["trigger"]), f"{secs:.1f}", flush=True)


if __name__ == "__main__":
    main()
