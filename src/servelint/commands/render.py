"""``servelint render RECIPE``: print the launches the recipes site renders for a recipe."""

from __future__ import annotations

import argparse
import json
import sys

from servelint.sources.recipe.render import FeatureChoice, Rendering, render
from servelint.sources.srt_slurm import looks_like_srt_slurm
from servelint.sources.srt_slurm.show import render as render_srt


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("recipe", metavar="RECIPE", help="recipe file (models/<org>/<model>.yaml)")
    p.add_argument("--hardware", help="hardware id from taxonomy.yaml (h100, b200, mi355x, ...)")
    p.add_argument("--strategy", help="serving strategy (single_node_tp, multi_node_dep, ...)")
    p.add_argument("--variant", help="variant key (default, fp8, nvfp4, ...)")
    p.add_argument(
        "--feature",
        action="append",
        default=[],
        metavar="F[=MODE]",
        help="switch a feature on (or pick its mode; F=off switches it off); repeatable. "
        "Without --feature every opt-in feature and mode is rendered one at a time",
    )
    p.add_argument("--selector", help="srt-slurm override recipes: base, override_X, "
                   "zip_override_X[i] or a glob (default: every variant)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


def parse_features(specs: list[str]) -> dict[str, FeatureChoice] | None:
    if not specs:
        return None
    out: dict[str, FeatureChoice] = {}
    for spec in specs:
        name, sep, mode = spec.partition("=")
        if not name:
            raise ValueError(f"bad --feature {spec!r}")
        out[name] = (False if mode == "off" else mode) if sep and mode else True
    return out


def rendering_json(r: Rendering) -> dict:
    out = {
        "label": r.label,
        "engine": r.engine,
        "variant": r.variant,
        "hardware": r.hardware,
        "strategy": r.strategy,
        "features": r.features,
        "argv": r.argv_text,
        "env": r.env_dict,
        "docker_image": r.image,
        "floor": r.floor,
    }
    if r.node_rank is not None:
        out["node_rank"], out["nodes"] = r.node_rank, r.nodes
    if r.task:
        out["task"] = r.task
    return out


def rendering_text(r: Rendering) -> str:
    head = [f"# {r.label}"]
    if r.engine != "vllm":
        head.append(f"# engine: {r.engine}")
    head.append(f"# image: {r.image or '(none)'}")
    if r.floor:
        head.append(f"# vLLM {r.floor}+")
    return "\n".join(head) + "\n" + r.command_text()


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.recipe, encoding="utf-8", errors="replace") as fh:
            head = fh.read(1 << 16)
    except OSError:
        head = ""
    if looks_like_srt_slurm(head):  # an srtctl recipe: the worker commands srtctl builds
        return render_srt(args.recipe, args.selector, args.format)
    try:
        features = parse_features(args.feature)
    except ValueError as exc:
        print(f"servelint render: {exc}", file=sys.stderr)
        return 2
    result = render(
        args.recipe,
        hardware=args.hardware,
        strategy=args.strategy,
        variant=args.variant,
        features=features,
    )
    for problem in result.problems:
        where = problem.path
        if problem.span is not None:
            where += f":{problem.span.line}:{problem.span.column}"
        print(f"{where}: {problem.kind}: {problem.message}", file=sys.stderr)
    if not result.renderings:
        if not result.problems:
            print("servelint render: the selection renders no launch", file=sys.stderr)
        return 2
    if args.format == "json":
        json.dump(
            [rendering_json(r) for r in result.renderings], sys.stdout, indent=2, ensure_ascii=False
        )
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n\n".join(rendering_text(r) for r in result.renderings) + "\n")
    return 0
