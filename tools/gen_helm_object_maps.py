#!/usr/bin/env python3
"""Record how a public Helm chart turns each entry of a values map into a custom object.

    python tools/gen_helm_object_maps.py GIT_DIR --repo substratusai/kubeai \
        --chart charts/models --values-path catalog --types api/k8s/v1/model_types.go

reads, at the repository's HEAD commit, the chart's ``Chart.yaml`` and the template that
ranges over ``.Values.<values-path>`` as ``$name, $item``, and writes
``src/servelint/data/helm_objects/<chart>.json``: the object's ``apiVersion``/``kind``,
``metadata.name`` from the entry's key, each ``spec`` key the template fills from an entry
field (``KEY: {{ $item.FIELD }}`` or ``{{- with $item.FIELD }}`` then ``KEY:``) with its
template line, the condition that renders an entry, and the values an entry's ``engine``
may take (the CRD's ``+kubebuilder:validation:Enum``, which tells a values file of this chart
from any other ``catalog:``). At check time ``sources/helm/objects.py`` builds the object
from a values file's entry, every field keeping its span, and reads it as the controller
map of that kind says (``sources/kubernetes/controllers.py``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "src" / "servelint" / "data" / "helm_objects"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--chart", required=True, help="the chart's folder in the repository")
    ap.add_argument("--values-path", required=True)
    ap.add_argument("--types", required=True, help="the API types file (for the engine enum)")
    args = ap.parse_args()
    commit = _git(args.git_dir, "rev-parse", "HEAD").strip()
    meta = yaml.safe_load(_git(args.git_dir, "show", f"HEAD:{args.chart}/Chart.yaml"))
    names = _git(args.git_dir, "ls-tree", "--name-only", f"HEAD:{args.chart}/templates").split()
    pattern = re.compile(rf"range (\$\w+), (\$\w+) := \.Values\.{re.escape(args.values_path)}\b")
    for name in names:
        path = f"{args.chart}/templates/{name}"
        lines = _git(args.git_dir, "show", f"HEAD:{path}").split("\n")
        found = next((pattern.search(line) for line in lines if pattern.search(line)), None)
        if found is not None:
            break
    else:
        raise SystemExit(f"no template ranges over .Values.{args.values_path}")
    key_var, item = found.group(1), found.group(2)
    record = {"chart": meta["name"], "version": str(meta["version"]), "repo": args.repo,
              "commit": commit, "source": path, "values_path": args.values_path,
              "fields": {}, "name_line": None, "gate": None}
    pending: tuple[str, int] | None = None
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if record["gate"] is None and text.startswith("{{- if ") and item in text:
            record["gate"] = {"line": n, "text": text}
        if text.startswith("kind:"):
            record["kind"] = text.split(":", 1)[1].strip()
        elif text.startswith("apiVersion:"):
            record["api_version"] = text.split(":", 1)[1].strip()
        elif text == f"name: {{{{ {key_var} }}}}":
            record["name_line"] = n
        m = re.fullmatch(rf"(\w+): \{{\{{ {re.escape(item)}\.(\w+) \}}\}}", text)
        if m:
            record["fields"][f"spec.{m.group(1)}"] = {"from": m.group(2), "line": n}
        m = re.fullmatch(rf"\{{\{{- with {re.escape(item)}\.(\w+) \}}\}}", text)
        if m:
            pending = (m.group(1), n)
            continue
        m = re.fullmatch(r"(\w+):(?: \{\{ \. \}\})?", text)
        if m and pending is not None and m.group(1) != "labels":
            record["fields"][f"spec.{m.group(1)}"] = {"from": pending[0], "line": n}
        pending = None
    types = _git(args.git_dir, "show", f"HEAD:{args.types}").split("\n")
    for n, line in enumerate(types, 1):
        m = re.search(r"\+kubebuilder:validation:Enum=(\S+)", line)
        if m and re.search(r'json:"engine"', "".join(types[n:n + 3])):
            record["engines"] = {"values": m.group(1).split(";"), "source": f"{args.types}:{n}"}
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{args.repo.split('/')[1]}-{meta['name']}.json"
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {meta['name']} {meta['version']} from {path}: {sorted(record['fields'])}")


if __name__ == "__main__":
    main()
