#!/usr/bin/env python3
"""Record how llm-d's ``llm-d-modelservice`` chart writes each container's command.

    python tools/gen_llmd_chart_map.py GIT_DIR

reads, at the HEAD commit of a llm-d-incubation/llm-d-modelservice git directory, the chart's
``Chart.yaml`` and ``templates/_helpers.tpl``: the ``llm-d-modelservice.command`` helper
that picks a command helper by ``container.modelCommand`` (and its default), and for each
command helper the literal ``command: [...]`` it writes, the literal argument words it adds
before the user's ``container.args`` (each with its line), whether those words start with
the model (``argsByProtocol``, with ``--model`` when ``modelArg``) and whether the user's
args come last. Writes ``src/servelint/data/helm_llmd/llm-d-modelservice.json``; read by
``sources/helm/llmd.py``. What the helpers compute from other values (the port, the
parallelism flags, tracing) is not recorded as words: at check time it is one symbolic word.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "src" / "servelint" / "data" / "helm_llmd"
CHART = "charts/llm-d-modelservice"
PREFIX = "llm-d-modelservice."


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def _defines(lines: list[str]) -> dict[str, tuple[int, int]]:
    """define name -> (first, last) 0-based line of its body."""
    out, name, start = {}, None, 0
    for i, line in enumerate(lines):
        m = re.match(r'\{\{-? define "([^"]+)" -?\}\}', line)
        if m:
            name, start = m.group(1), i
        elif name and re.match(r"\{\{-? end -?\}\}\s*\{\{-? /\* define", line):
            out[name] = (start, i)
            name = None
    return out


def _helper(lines: list[str], first: int, last: int) -> dict:
    body = lines[first:last + 1]
    command = next((json.loads(m.group(1)) for line in body
                    if (m := re.match(r"\s*command:\s*(\[.*\])\s*$", line))), None)
    words, gates = [], []  # gates: the `if` lines open at each line
    for n, line in enumerate(body, first + 1):
        if re.match(r"\s*\{\{-? if ", line):
            gates.append(line.strip())
        elif re.match(r"\s*\{\{-? end", line) and gates:
            gates.pop()
        m = re.match(r"\s*- (--[\w-]+)\s*$", line)
        if m:
            nxt = lines[n] if n < len(lines) else ""  # the item after it: its value
            value = re.match(r"\s*- \{\{ (.*?) \}\}\s*$", nxt)
            words.append({"word": m.group(1), "line": n, "when": gates[-1] if gates else None,
                          "value": value.group(1) if value else None})
    user_args = next((n for n, line in enumerate(body, first + 1)
                      if re.search(r"with \.container\.args", line)), None)
    by_protocol = next((n for n, line in enumerate(body, first + 1)
                        if "argsByProtocol" in line), None)
    model_flag = by_protocol is not None and "modelArg\" true" in lines[by_protocol - 1]
    user_command = any(re.search(r"with \.container\.command", line) for line in body)
    return {"lines": [first + 1, last + 1], "command": command,
            "command_from_container": user_command,
            "model_first": by_protocol, "model_flag": model_flag,
            "chart_words": words, "user_args_line": user_args,
            "user_args_last": user_args is not None and all(
                w["line"] < user_args for w in words)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir")
    args = ap.parse_args()
    commit = _git(args.git_dir, "rev-parse", "HEAD").strip()
    meta = yaml.safe_load(_git(args.git_dir, "show", f"HEAD:{CHART}/Chart.yaml"))
    path = f"{CHART}/templates/_helpers.tpl"
    lines = _git(args.git_dir, "show", f"HEAD:{path}").split("\n")
    defines = _defines(lines)
    first, last = defines[PREFIX + "command"]
    body = "\n".join(lines[first:last + 1])
    default = re.search(r'default "(\w+)" \.container\.modelCommand', body).group(1)
    dispatch = {}
    for value, helper in re.findall(r'eq \$modelCommand "(\w+)" \}\}\s*\{\{-? include "([^"]+)"',
                                    body):
        dispatch[value] = {"helper": helper, **_helper(lines, *defines[helper])}
    record = {"chart": meta["name"], "version": str(meta["version"]),
              "repo": "llm-d-incubation/llm-d-modelservice", "commit": commit,
              "source": path, "dispatcher_lines": [first + 1, last + 1],
              "default": default, "commands": dispatch, "roles": ["decode", "prefill"],
              "values_keys": ["modelArtifacts"]}
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{meta['name']}.json"
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {meta['name']} {meta['version']} at {commit[:12]}: {sorted(dispatch)}")


if __name__ == "__main__":
    main()
