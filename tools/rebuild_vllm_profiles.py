#!/usr/bin/env python3
"""Rebuild every committed vLLM release profile with the current builder, in one command.

    python tools/rebuild_vllm_profiles.py --wheel-dir DIR --sdist-dir DIR [--sdist-dir DIR …]
                                          [--out ROOT] [--download]

For each release that has a profile in ``profiles/data/vllm/`` it

1. builds the profile from the release's wheel in ``--wheel-dir`` (``vllm-X-*.whl``; with
   ``--download`` a missing one is fetched by ``pip download --no-deps --only-binary :all:``),
   and says so when the wheel is not the file (name, sha256) the committed profile names;
2. reads the image package sets from the release's sdist (``vllm-X.tar.gz`` in a
   ``--sdist-dir``), as ``servelint profile build-image`` does. A release without an sdist
   keeps its committed set (copied to ``--out``); one without either keeps the inferred union.

Then it rewrites the history index (only when writing into the package's own data). Nothing
of the wheel or sdist is executed or imported. The output does not depend on the order of
releases, on the hash seed or on the clock.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
import time
from pathlib import Path

from packaging.version import Version

from servelint import profiles
from servelint.builders.build import build_from_wheel
from servelint.builders.wheel import download, find_cached
from servelint.engines import history

ENGINE = "vllm"


def committed_releases() -> list[str]:
    folder = profiles.folder(ENGINE)
    names = (p.name.removesuffix(".json.gz") for p in folder.glob("*.json.gz"))
    return sorted((n for n in names if n[:1].isdigit()), key=Version)


def wheel_for(version: str, wheel_dir: Path, fetch: bool) -> Path | None:
    found = find_cached(ENGINE, version, wheel_dir)
    if found is None and fetch:
        found = download(ENGINE, version, wheel_dir)
    return found


def sdist_for(version: str, sdist_dirs: list[Path]) -> Path | None:
    for folder in sdist_dirs:
        path = folder / f"{ENGINE}-{version}.tar.gz"
        if path.is_file():
            return path
    return None


def wheel_note(version: str, data: dict) -> str:
    """'' when the wheel is the one the committed profile names, else what differs."""
    old = profiles.load(ENGINE, version)
    old_wheel = old.data.get("wheel", {}) if old is not None else {}
    if old_wheel and old_wheel != data["wheel"]:
        return f" (committed profile names {old_wheel.get('filename')} {old_wheel.get('sha256')})"
    return ""


def rebuild_profile(version: str, wheel: Path, out: Path | None) -> str:
    data = build_from_wheel(ENGINE, wheel)
    note = wheel_note(version, data)
    profiles.write(data, ENGINE, version, out)
    return f"profile from {wheel.name}{note}"


def rebuild_image(version: str, sdist: Path | None, out: Path | None) -> str:
    from servelint.builders.vllm.image_build import build as read_image

    target = profiles.image_build_path(ENGINE, version, out)
    committed = profiles.image_build_path(ENGINE, version)
    if sdist is None:
        if not committed.is_file():
            return "image: no sdist, no set (inferred union)"
        if target != committed:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(committed, target)
        return "image: no sdist, committed set kept"
    try:
        data = read_image(sdist)
    except (OSError, tarfile.TarError) as exc:
        return f"image: FAILED reading {sdist.name}: {exc}"
    data["command"] = f"servelint profile build-image {ENGINE} {version} --sdist {sdist.name}"
    profiles.write(data, ENGINE, version, path=target)
    return f"image from {sdist.name}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel-dir", type=Path, required=True)
    ap.add_argument("--sdist-dir", type=Path, action="append", default=[])
    ap.add_argument("--out", type=Path, help="profile data root (default: the package's data)")
    ap.add_argument("--download", action="store_true", help="pip download missing wheels")
    ap.add_argument("versions", nargs="*", help="only these releases (default: all committed)")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    failed = 0
    for version in args.versions or committed_releases():
        wheel = wheel_for(version, args.wheel_dir, args.download)
        if wheel is None:
            print(f"vllm {version}: FAILED: no wheel in {args.wheel_dir}", file=sys.stderr)
            failed += 1
            continue
        try:
            said = rebuild_profile(version, wheel, args.out)
        except Exception as exc:  # report and go on with the other releases
            print(f"vllm {version}: FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed += 1
            continue
        said += "; " + rebuild_image(version, sdist_for(version, args.sdist_dir), args.out)
        print(f"vllm {version}: {said}", flush=True)
    if args.out is None:
        print(f"history: {history.write_index(ENGINE)}")
    print(f"{time.perf_counter() - start:.0f} s, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
