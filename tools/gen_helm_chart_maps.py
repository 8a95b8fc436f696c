#!/usr/bin/env python3
"""Record how a public Helm chart writes its engine command, from the chart's own template.

    python tools/gen_helm_chart_maps.py CHART_DIR --values-path servingEngineSpec.modelSpec \
        --item-var '$modelSpec' --container vllm

reads ``CHART_DIR/Chart.yaml`` (name, version) and the template that ranges over
``.Values.<values-path>`` with ``<item-var>``, and writes
``src/servelint/data/helm_charts/<name>.json``: the chart's name and version, the template
file and line range, the variable assignments before the object (``$kv_role := …``), and
the container's ``image:`` line and ``command:`` block as template text, verbatim. At check
time ``sources/helm/values.py`` renders them against a user's values file
(``sources/helm/gotemplate.py``). A new chart version: re-run on its checkout.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "src" / "servelint" / "data" / "helm_charts"


def _find_template(chart: Path, values_path: str, item_var: str) -> Path:
    pattern = f"range {item_var} := .Values.{values_path}"
    for path in sorted((chart / "templates").glob("*.yaml")):
        if pattern in path.read_text(encoding="utf-8"):
            return path
    raise SystemExit(f"no template ranges over .Values.{values_path} with {item_var}")


def _container_block(lines: list[str], container: str) -> tuple[int, int, int]:
    """(image line, first and last line of the command block), 0-based."""
    start = next(i for i, line in enumerate(lines)
                 if re.match(rf'\s*- name:\s*"?{re.escape(container)}"?\s*$', line))
    image = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("image:"))
    cmd = next(i for i in range(start, len(lines)) if lines[i].strip() == "command:")
    indent = len(lines[cmd]) - len(lines[cmd].lstrip())
    end = cmd + 1
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and not stripped.startswith(("-", "{{")) and \
                len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    return image, cmd + 1, end


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chart", type=Path)
    ap.add_argument("--values-path", default="servingEngineSpec.modelSpec")
    ap.add_argument("--item-var", default="$modelSpec")
    ap.add_argument("--container", default="vllm")
    ap.add_argument("--source", default="vllm-project/production-stack: helm/",
                    help="where the chart is published (recorded as provenance)")
    args = ap.parse_args()
    meta = yaml.safe_load((args.chart / "Chart.yaml").read_text(encoding="utf-8"))
    template = _find_template(args.chart, args.values_path, args.item_var)
    lines = template.read_text(encoding="utf-8").split("\n")
    image, first, end = _container_block(lines, args.container)
    head = next(i for i, line in enumerate(lines) if line.strip() == "---")
    ranged = next(i for i, line in enumerate(lines) if f"range {args.item_var} :=" in line)
    # what the template decides per item before the object: conditions (enabled, ray),
    # variables; rendered before the command block, whose output they gate
    preamble = lines[ranged + 1:head]
    record = {
        "chart": meta["name"],
        "version": str(meta["version"]),
        "source": args.source + str(template.relative_to(args.chart)),
        "values_path": args.values_path,
        "item_var": args.item_var,
        "preamble": "\n".join(preamble),
        "image": {"line": image + 1, "template": lines[image].strip()[len("image:"):].strip()},
        "command": {"lines": [first + 1, end], "template": "\n".join(lines[first:end])},
    }
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{meta['name']}.json"
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {meta['name']} {meta['version']} from {template.name} lines "
          f"{first + 1}-{end}")


if __name__ == "__main__":
    main()
