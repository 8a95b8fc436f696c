"""``servelint profile build|list|show|diff|index``: engine release profiles."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.engines import history, registry
from servelint.engines.diff import diff_profiles, format_diff
from servelint.engines.dynamo.diff import diff_dynamo, format_dynamo_diff
from servelint.profiles import store
from servelint.util import cli_values


def register(p: argparse.ArgumentParser) -> None:
    psub = p.add_subparsers(dest="profile_command", metavar="ACTION")

    b = psub.add_parser("build", help="build profiles from released wheels (needs pip download)")
    b.add_argument(
        "engine", choices=[e.name for e in registry.engines() if e.extractors] + ["dynamo"]
    )
    b.add_argument("versions", nargs="*", help="releases to build (X.Y.Z)")
    b.add_argument(
        "--range",
        metavar="LOW:HIGH",
        help="every release on the package index with LOW <= version <= HIGH",
    )
    b.add_argument("--wheel-dir", type=Path, help="where wheels are cached/downloaded")
    b.add_argument("--out", type=Path, help="profile data root (default: the package's data)")
    b.add_argument(
        "--source-dir",
        type=Path,
        help="trtllm: build from a source tree holding tensorrt_llm/ (not a wheel)",
    )
    b.add_argument("--wheel", type=Path, help="trtllm: build from this wheel file")
    b.add_argument("--root", type=Path, metavar="DIR",
                   help="build from an unpacked filesystem or venv holding the engine "
                   "(an exported image); store it for --as REF")
    b.add_argument("--image-archive", type=Path, metavar="FILE",
                   help="build from a `docker save` or OCI layout tarball; store it for --as REF")
    b.add_argument("--image", metavar="REF",
                   help="save this image with docker or podman, then build as --image-archive")
    b.add_argument("--as", dest="as_ref", metavar="REF",
                   help="the image reference (tag or digest) the stored profile stands for")
    b.add_argument("--profiles-dir", type=Path, metavar="DIR",
                   help="the store of profiles built from images (default: "
                   "$SERVELINT_PROFILES, else the XDG data folder)")
    b.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="trtllm: provenance to record (repo=OWNER/NAME, commit=SHA, how=...)",
    )
    b.set_defaults(func=run_build)

    bi = psub.add_parser(
        "build-image",
        help="read an official image's package set, per flavour, "
        "from the release's sdist build files",
    )
    bi.add_argument("engine", choices=["vllm"])
    bi.add_argument("version")
    bi.add_argument("--sdist", type=Path, required=True, help="the release's sdist (.tar.gz)")
    bi.add_argument("--out", type=Path, help="profile data root (default: the package's data)")
    bi.set_defaults(func=run_build_image)

    ls = psub.add_parser("list", help="list the releases servelint has profiles for")
    ls.add_argument("engine", nargs="?")
    ls.add_argument("--profiles-dir", type=Path, metavar="DIR",
                    help="the store of profiles built from images")
    ls.set_defaults(func=run_list)

    s = psub.add_parser("show", help="show one release profile")
    s.add_argument("engine")
    s.add_argument("version")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=run_show)

    d = psub.add_parser("diff", help="what changed between two releases")
    d.add_argument("engine")
    d.add_argument("old")
    d.add_argument("new")
    d.add_argument("--format", choices=["text", "json"], default="text")
    d.set_defaults(func=run_diff)

    i = psub.add_parser("index", help="rebuild the cross-release history index")
    i.add_argument("engine")
    i.set_defaults(func=run_index)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def index_versions(engine: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", engine],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = re.search(r"Available versions:\s*(.+)", out)
    return [v.strip() for v in m.group(1).split(",")] if m else []


def run_build_trtllm(args: argparse.Namespace) -> int:
    from servelint.builders.trtllm.builder import build

    if len(args.versions) != 1:
        print("servelint: name one trtllm release per build", file=sys.stderr)
        return 2
    origin = dict(item.partition("=")[::2] for item in args.origin)
    try:
        path = build(
            args.versions[0],
            source_dir=args.source_dir,
            wheel=args.wheel,
            origin=origin,
            out_root=args.out,
        )
    except (OSError, ValueError, SyntaxError) as exc:
        print(f"trtllm {args.versions[0]}: FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"trtllm {args.versions[0]}: {path}")
    if args.out is None:
        history.write_index("trtllm")
    return 0


def run_build(args: argparse.Namespace) -> int:
    from servelint.builders.build import build

    store.set_dir(args.profiles_dir)
    if args.root or args.image_archive or args.image:
        return run_build_from_image(args)
    if args.engine == "trtllm":
        return run_build_trtllm(args)

    versions = list(args.versions)
    if args.range:
        low, _, high = args.range.partition(":")
        engine = registry.find(args.engine)
        package = (engine.package or engine.name) if engine else "ai-dynamo"
        for v in index_versions(package):
            try:
                pv = Version(v)
            except InvalidVersion:
                continue
            if Version(low) <= pv <= Version(high) and not pv.is_prerelease:
                versions.append(v)
    if not versions:
        print("servelint: name releases or --range LOW:HIGH", file=sys.stderr)
        return 2
    failed = 0
    for v in sorted(set(versions), key=Version):
        try:
            if args.engine == "dynamo":  # worker profiles: servelint.builders.dynamo.builder
                from servelint.builders.dynamo.builder import build_release

                print(f"dynamo {v}: {build_release(v, args.wheel_dir, args.out)}")
                continue
            path, secs = build(args.engine, v, wheel_dir=args.wheel_dir, out_root=args.out)
        except Exception as exc:  # report and go on with the other releases
            print(f"{args.engine} {v}: FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{args.engine} {v}: {path} ({secs:.1f} s)")
    if args.out is None and args.engine != "dynamo":
        history.write_index(args.engine)
    return 1 if failed else 0


def run_build_from_image(args: argparse.Namespace) -> int:
    """``--root`` / ``--image-archive`` / ``--image``: a profile of what the image holds,
    stored for ``--as`` (default: the ``--image`` reference)."""
    from servelint.builders.from_image import ArchiveError, build_and_store

    given = [x for x in (args.root, args.image_archive, args.image) if x]
    if len(given) != 1 or args.versions or args.range:
        print("servelint: name one of --root, --image-archive, --image (and no releases)",
              file=sys.stderr)
        return 2
    as_ref = args.as_ref or args.image
    if not as_ref:
        print("servelint: --as REF names the image the profile stands for", file=sys.stderr)
        return 2
    if args.engine == "dynamo":  # its profiles are per wrapper release, not per image
        print("servelint: dynamo worker profiles are built from ai-dynamo wheels; build the "
              "image's engine (vllm, sglang, trtllm) instead", file=sys.stderr)
        return 2
    try:
        path, data = build_and_store(
            args.engine, as_ref, root=args.root, archive=args.image_archive, image=args.image
        )
    except (ArchiveError, LookupError, OSError, SyntaxError) as exc:
        print(f"servelint: {args.engine} from {given[0]}: {exc}", file=sys.stderr)
        return 1
    installed = len(data.get("image", {}).get("installed", {}))
    print(f"{args.engine} {data['version']} for {store.normalize(as_ref)}: {path} "
          f"({installed} installed distributions read)")
    return 0


def run_build_image(args: argparse.Namespace) -> int:
    from servelint.builders.vllm.image_build import build as read_image

    try:
        data = read_image(args.sdist)
    except (OSError, tarfile.TarError) as exc:
        print(f"servelint: cannot read {args.sdist}: {exc}", file=sys.stderr)
        return 1
    data["command"] = (
        f"servelint profile build-image {args.engine} {args.version} --sdist {args.sdist.name}"
    )
    path = profiles.image_build_path(args.engine, args.version, args.out)
    profiles.write(data, args.engine, args.version, path=path)
    flavours = ", ".join(f"{k}: {len(v['packages'])} packages" for k, v in data["flavours"].items())
    print(f"{args.engine} {args.version}: {path} ({flavours})")
    return 0


def run_list(args: argparse.Namespace) -> int:
    store.set_dir(args.profiles_dir)
    for engine in [args.engine] if args.engine else profiles.engines():
        vs = profiles.available(engine)
        print(f"{engine}: {len(vs)} releases: {', '.join(vs)}")
        for v in vs:  # releases built from a source tree say where it came from
            prof = profiles.load(engine, v)
            if prof is not None and "provenance" in prof.data:
                print(f"  {v}: {_provenance_text(prof.data['provenance'])}")
    stored = [e for e in store.entries() if not args.engine or e.engine == args.engine]
    if stored:
        print(f"built from images ({store.store_dir()}):")
    for entry in stored:
        state = "" if entry.fresh() else "; built by another builder: rebuild it (not used)"
        print(f"  {entry.ref}: {entry.engine} {entry.version}, {entry.provenance()}{state}")
    return 0


def _provenance_text(prov: dict) -> str:
    where = prov.get("repo", "?") + (f"@{prov['commit'][:12]}" if prov.get("commit") else "")
    sub = f":{prov['subdir']}" if prov.get("subdir") else ""
    return (
        f"{prov.get('kind')} {where}{sub}, {prov.get('package_files')} files, tree sha256 "
        f"{prov.get('tree_sha256', '')[:12]}, {len(prov.get('files_read', {}))} files read"
        + (f"; {prov['how']}" if prov.get("how") else "")
    )


def _load_or_fail(engine: str, version: str) -> profiles.Profile | None:
    try:
        engine = cli_values.engine_name(engine)  # a misspelt engine: did you mean
    except ValueError as exc:
        print(f"servelint: {exc}", file=sys.stderr)
        return None
    prof = profiles.load(engine, version)
    if prof is None:
        near = ", ".join(cli_values.nearest_releases(engine, version)) or "none"
        have = profiles.available(engine)
        span = f"{have[0]} to {have[-1]}" if have else "none"
        print(f"servelint: no profile for {engine} {version} (servelint knows {engine} {span}; "
              f"nearest: {near})", file=sys.stderr)
    return prof


def run_show(args: argparse.Namespace) -> int:
    prof = _load_or_fail(args.engine, args.version)
    if prof is None:
        return 2
    if args.format == "json":
        json.dump(prof.data, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    d = prof.data
    if "provenance" in d:
        print(f"{prof.label}  provenance: {_provenance_text(d['provenance'])}")
    print(
        f"{prof.label}  ({d['wheel'].get('from', 'wheel')} {d['wheel']['filename']}, sha256 "
        f"{d['wheel']['sha256'][:16]}…, builder {d['builder_version']})"
    )
    print(f"options: {len(prof.actions)} actions, {len(prof.option_index)} option strings")
    print(f"argv rules: {json.dumps(prof.rules, sort_keys=True)}")
    print(f"config classes: {len(prof.configs)}")
    if "llm_api" in d:  # TensorRT-LLM: the option-file model and the env reads
        llm = d["llm_api"]
        print(
            f"LLM API classes: {len(llm['classes'])} (roots {', '.join(llm['roots'])}); "
            f"types read as accepting anything: {', '.join(llm['opaque_types']) or 'none'}"
        )
        print(
            f"env vars read or named by the code: {len(prof.env_read_unregistered)} "
            f"(prefixes {', '.join(d['env'].get('prefixes', []))})"
        )
    for name, entry in sorted(prof.late_values.items()):
        vals = entry.get("values", [])
        print(
            f"values {name} ({entry.get('stage', '?')}): {', '.join(vals[:40])}"
            + (" …" if len(vals) > 40 else "")
        )
    print(
        f"env vars: {len(prof.env_registry)} registered; unknown-var warning: "
        f"{prof.env_unknown_warning}"
    )
    for g in prof.gates:
        trig = g.get("trigger")
        if trig:
            what = trig.get("name") or trig.get("path")
            val = f"={trig['value']}" if trig.get("value") else ""
            print(
                f"gate {trig.get('kind')} {what}{val} -> {g['package']}{g.get('specifier') or ''}"
                f"  ({g.get('source', '')})"
            )
    pk = prof.image_packages()
    print(f"image {prof.image.get('repository', '?')}: {len(pk)} packages")
    for name, fl in sorted(prof.image.get("build", {}).get("flavours", {}).items()):
        state = "complete" if fl.get("complete") else "partial: " + fl.get("incomplete", "")
        print(
            f"image {name} ({fl['dockerfile']} target {fl.get('target')}, {state}): "
            f"{len(fl['packages'])} packages besides the wheel's"
        )
    for name, b in sorted(prof.backends.items()):
        print(f"backend {name}: {json.dumps(b, sort_keys=True)}")
    return 0


def run_diff(args: argparse.Namespace) -> int:
    old = _load_or_fail(args.engine, args.old)
    new = _load_or_fail(args.engine, args.new)
    if old is None or new is None:
        return 2
    if args.engine == "dynamo":
        dd = diff_dynamo(old, new)
        print(json.dumps(dd, indent=1) if args.format == "json" else format_dynamo_diff(dd))
        return 0
    d = diff_profiles(old, new)
    if args.format == "json":
        json.dump(d, sys.stdout, indent=1)
        print()
    else:
        print(format_diff(d))
    return 0


def run_index(args: argparse.Namespace) -> int:
    print(history.write_index(args.engine))
    return 0
