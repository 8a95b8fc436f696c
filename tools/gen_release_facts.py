#!/usr/bin/env python3
"""Regenerate the release facts beside an engine's profiles (generated data: do not edit them).

    python tools/gen_release_facts.py vllm --from DIR [--from DIR …] [--download] [--missing]

For every profiled release it takes the release's sdist (``<package>-<X>.tar.gz``) or wheel
(``<package>-<X>-….whl``) from the ``--from`` folders; with ``--download`` a missing one is
fetched with ``pip download --no-deps --only-binary :all:`` (exactly the wheel file the profile
names, its sha256 checked), read, and deleted. It writes

* ``profiles/data/<engine>/releases.json``: release -> date and how it was read
  (``engines/_build/release_facts.release_date``);
* ``profiles/data/<engine>/env_reads.json.gz``: env names the code reads by a literal, with
  the first place reading them, per release, delta-encoded: ``reads[name]`` is a list of
  ``[first, last, "path:line"]`` over consecutive releases of ``scanned``.

The per-release profile files are not touched. Releases with no artifact keep their old
entries (a re-run adds, never forgets).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.utils import parse_wheel_filename

from servelint import profiles
from servelint.builders.release_facts import env_reads, package_sources, release_date
from servelint.engines import registry


def _find(package: str, version: str, folders: list[Path]) -> Path | None:
    stem = package.replace("-", "_")
    for folder in folders:
        for pattern in (
            f"{package}-{version}.tar.gz",
            f"{stem}-{version}.tar.gz",
            f"{stem}-{version}-*.whl",
            f"{package}-{version}-*.whl",
        ):
            hits = sorted(folder.glob(pattern))
            if hits:
                return hits[0]
    return None


def _download(package: str, version: str, wheel: dict, dest: Path) -> Path | None:
    """The wheel the profile was built from, or None when pip cannot get it."""
    name = wheel.get("filename", "")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--only-binary",
        ":all:",
        "-d",
        str(dest),
    ]
    if name:
        _, _, _, tags = parse_wheel_filename(name)
        tag = sorted(tags, key=str)[0]
        if tag.platform != "any":
            cmd += [
                "--platform",
                tag.platform,
                "--abi",
                tag.abi,
                "--implementation",
                tag.interpreter[:2],
            ]
            if tag.abi != "abi3" and tag.interpreter[2:].isdigit():
                cmd += ["--python-version", tag.interpreter[2:]]
    subprocess.run(
        [*cmd, f"{package}=={version}"],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    hits = sorted(dest.glob("*.whl"))
    if not hits:
        return None
    sha = wheel.get("sha256")
    if sha and hashlib.sha256(hits[0].read_bytes()).hexdigest() != sha:
        print(f"{version}: downloaded wheel differs from the profile's sha256", file=sys.stderr)
        return None
    return hits[0]


def _load(path: Path, default: dict) -> dict:
    if not path.exists():
        return default
    if path.suffix == ".gz":
        return json.loads(gzip.decompress(path.read_bytes()))
    return json.loads(path.read_text())


def _per_release(reads_doc: dict) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {v: {} for v in reads_doc.get("scanned", [])}
    order = reads_doc.get("scanned", [])
    for name, runs in reads_doc.get("reads", {}).items():
        for first, last, at in runs:
            for v in order[order.index(first) : order.index(last) + 1]:
                out[v][name] = at
    return out


def _delta(per: dict[str, dict[str, str]], order: list[str]) -> dict[str, list]:
    runs: dict[str, list] = {}
    names = sorted({n for v in order for n in per[v]})
    for name in names:
        out: list = []
        prev_idx = -2
        for i, v in enumerate(order):
            at = per[v].get(name)
            if at is None:
                continue
            if out and prev_idx == i - 1 and out[-1][2] == at:
                out[-1][1] = v
            else:
                out.append([v, v, at])
            prev_idx = i
        runs[name] = out
    return runs


def _drop_shared_stamps(dates: dict[str, dict]) -> None:
    """A stamp two releases share is a fixed build time (Dynamo's wheels all say
    2020-02-02T00:00:00), not a build date: dropped."""
    stamps: dict[str, list[str]] = {}
    for version, entry in dates.items():
        stamps.setdefault(entry["how"].rsplit(" ", 1)[-1], []).append(version)
    for stamp, versions in stamps.items():
        if len(versions) > 1:
            print(f"{', '.join(versions)}: one stamp {stamp}, no build date", file=sys.stderr)
            for version in versions:
                del dates[version]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--from", dest="folders", action="append", type=Path, default=[])
    ap.add_argument("--download", action="store_true")
    ap.add_argument("--no-env", action="store_true", help="dates only")
    ap.add_argument("--missing", action="store_true", help="only releases the files lack")
    args = ap.parse_args()
    engine = registry.find(args.engine)
    if engine is None or not engine.package:
        ap.error(f"unknown engine {args.engine!r}")
    package, folder = engine.package, profiles.folder(args.engine)
    dates_path, reads_path = folder / "releases.json", folder / "env_reads.json.gz"
    dates = _load(dates_path, {}).get("releases", {})
    per = _per_release(_load(reads_path, {}))
    for version in profiles.available(args.engine):
        if args.missing and version in dates and (args.no_env or version in per):
            continue
        path = _find(package, version, args.folders)
        with tempfile.TemporaryDirectory(prefix="release-facts-") as tmp:
            if path is None and args.download:
                prof = profiles.load(args.engine, version)
                path = _download(
                    package, version, (prof.data if prof else {}).get("wheel", {}), Path(tmp)
                )
            if path is None:
                print(f"{version}: no sdist or wheel", file=sys.stderr)
                continue
            date = release_date(path)
            if date:
                dates[version] = {"date": date[0], "how": date[1]}
            if not args.no_env:
                per[version] = env_reads(package_sources(path, package))
            print(f"{version}: {date[0] if date else 'no date'} from {path.name}", file=sys.stderr)
    _drop_shared_stamps(dates)
    order = [v for v in profiles.available(args.engine) if v in per]
    dates_doc = {
        "engine": args.engine,
        "format": 1,
        "generated_by": "tools/gen_release_facts.py",
        "releases": {v: dates[v] for v in profiles.available(args.engine) if v in dates},
    }
    if dates_doc["releases"]:
        dates_path.write_text(json.dumps(dates_doc, indent=1, sort_keys=True) + "\n")
    if not args.no_env and order:
        doc = {
            "engine": args.engine,
            "format": 1,
            "generated_by": "tools/gen_release_facts.py",
            "scanned": order,
            "reads": _delta(per, order),
        }
        raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        reads_path.write_bytes(gzip.compress(raw, mtime=0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
