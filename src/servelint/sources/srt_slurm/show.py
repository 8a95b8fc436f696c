"""``servelint render`` for srt-slurm recipes: each role's worker command, env and image."""

from __future__ import annotations

import json
import shlex
import sys

from servelint.sources.srt_slurm.reader import read_recipe


def render(path: str, selector: str | None, fmt: str) -> int:
    result = read_recipe(path, selector=selector)
    for p in result.problems:
        where = f"{p.path}:{p.span.line}:{p.span.column}" if p.span else p.path
        print(f"{where}: {p.kind}: {p.message}", file=sys.stderr)
    if not result.launches:
        return 2
    rows = []
    for spec in result.launches:
        words = (
            spec.context.get("prefix", "").split()
            + spec.entrypoint.split()
            + [t.text for t in spec.argv]
        )
        rows.append(
            {
                "rendering": spec.rendering,
                "engine": spec.engine,
                "role": spec.context.get("role"),
                "image": spec.image,
                "dynamo": spec.context.get("dynamo_release"),
                "argv": words,
                "env": {e.name: e.value for e in spec.env},
            }
        )
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    blocks = []
    for row in rows:
        head = [
            f"# {row['rendering']}",
            f"# image: {row['image'] or '(alias or none)'}",
            f"# ai-dynamo: {row['dynamo'] or '(not named)'}",
        ]
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in row["env"].items())
        blocks.append("\n".join(head) + "\n" + (env + " " if env else "") + shlex.join(row["argv"]))
    sys.stdout.write("\n\n".join(blocks) + "\n")
    return 0
