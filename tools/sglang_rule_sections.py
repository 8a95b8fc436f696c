#!/usr/bin/env python3
"""Refresh the ``parser.rules.config_merge`` and ``parser.rules.serve_routing`` sections of
every committed SGLang profile from its own wheel (as ``builder/parser_rules.config_merge_rules``
and ``builder/serve_routes.serve_routing`` write them), without rebuilding the rest.

    python tools/sglang_rule_sections.py [--wheel-dir DIR] [VERSION ...]

Per release: the wheel the profile names is fetched (``pip download --no-deps --only-binary
:all:``) into a temporary folder unless ``--wheel-dir`` holds it, its sha256 must equal the
profile's ``wheel.sha256``, the section is read from the wheel's source (nothing is imported)
and written back; the wheel is deleted after use. A release whose wheel cannot be had or
does not match keeps its section and is named on stderr.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from packaging.version import Version

from servelint import profiles
from servelint.builders.sglang.parser_rules import config_merge_rules
from servelint.builders.sglang.serve_routes import serve_routing
from servelint.builders.wheel import WheelSource, download, find_cached

ENGINE = "sglang"


def releases() -> list[str]:
    names = (p.name.removesuffix(".json.gz") for p in profiles.folder(ENGINE).glob("*.json.gz"))
    return sorted((n for n in names if n[:1].isdigit()), key=Version)


def refresh(version: str, wheel_dir: Path | None) -> str:
    path = profiles.folder(ENGINE) / f"{version}.json.gz"
    data = _read(path)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = find_cached(ENGINE, version, wheel_dir) if wheel_dir else None
        if wheel is None:
            try:
                wheel = download(ENGINE, version, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - reported, the section is kept
                return f"{version}: no wheel ({exc})"
        src = WheelSource(wheel)
        want = data.get("wheel", {}).get("sha256")
        if want and src.sha256 != want:
            return f"{version}: wheel sha256 {src.sha256} is not the profile's {want}"
        sections = {"config_merge": config_merge_rules(src), "serve_routing": serve_routing(src)}
        src.zip.close()
    rules = data.setdefault("parser", {}).setdefault("rules", {})
    changed = []
    for key, section in sections.items():
        if rules.get(key) or section:  # (a release without one: absent, as the builder)
            if rules.get(key) != section:
                rules[key] = section
                changed.append(key)
    if not changed:
        return f"{version}: unchanged"
    profiles.write(data, ENGINE, version, path=path)
    return f"{version}: {', '.join(changed)}"


def _read(path: Path) -> dict:
    import gzip
    import json

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel-dir", type=Path)
    ap.add_argument("versions", nargs="*")
    args = ap.parse_args(argv)
    for version in args.versions or releases():
        print(refresh(version, args.wheel_dir), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
