#!/usr/bin/env python3
"""Write the entrypoint-by-release table of the official vLLM images from the releases' sdists.

    python tools/gen_image_entrypoints.py SOURCES [--out src/servelint/engines/vllm/image_entrypoints.json]

SOURCES holds one entry per release, each either an sdist (``vllm-0.10.1.1.tar.gz``) or the
unpacked tree of one (a folder named by the release, or holding a ``PKG-INFO`` that names
it). Each release's own ``docker/Dockerfile*`` and ``.buildkite/release-pipeline.yaml`` are
read (``servelint.builders.vllm.image_entrypoint``): the ENTRYPOINT and CMD of each
flavour's release target, with file:line. Offline: nothing is downloaded or executed.
Getting an sdist without building it: ``pip download --no-deps --no-binary :all:
--no-build-isolation --no-clean vllm==X`` fails at the metadata step but leaves the unpacked
tree in its temporary folder.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from packaging.version import InvalidVersion, Version

from servelint.builders.vllm.image_build import PIPELINE, sdist_files
from servelint.builders.vllm.image_entrypoint import read_release

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "servelint" / "engines" / "vllm" / "image_entrypoints.json"
_SDIST = re.compile(r"^vllm-(?P<version>[0-9][^/]*?)\.tar\.gz$")
_PKG_VERSION = re.compile(r"^Version:\s*(\S+)", re.M)


def tree_files(root: Path) -> dict[str, str]:
    """The build files of an unpacked sdist (path relative to its root -> text)."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and (rel.startswith("docker/") or rel == PIPELINE
                               or rel.startswith("Dockerfile")):
            out[rel] = path.read_text(encoding="utf-8", errors="replace")
    return out


def release_of(entry: Path) -> tuple[str, str] | None:
    """(release, how it is known) for one SOURCES entry, or None when it is not a release."""
    m = _SDIST.match(entry.name)
    if entry.is_file() and m:
        return m.group("version"), entry.name
    info = entry / "PKG-INFO"
    if entry.is_dir() and info.is_file():
        found = _PKG_VERSION.search(info.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1), f"PKG-INFO of vllm-{found.group(1)}"
    return None


def build(sources: Path) -> dict:
    releases: dict[str, dict] = {}
    for entry in sorted(sources.iterdir()):
        found = release_of(entry)
        if found is None:
            continue
        release, how = found
        files = sdist_files(entry) if entry.is_file() else tree_files(entry)
        flavours = read_release(files)
        if flavours:
            releases[release] = {"read_from": how, "flavours": flavours}
    order = sorted(releases, key=_version_key)
    return {
        "format": 1,
        "generated_by": "tools/gen_image_entrypoints.py (each release's sdist: docker/Dockerfile*"
                        ", .buildkite/release-pipeline.yaml)",
        "releases": {r: releases[r] for r in order},
    }


def _version_key(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    table = build(args.sources)
    if not table["releases"]:
        print(f"no vLLM release found under {args.sources}", file=sys.stderr)
        return 1
    args.out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{len(table['releases'])} releases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
