"""Compare dump_env.py output with a profile's env section: python compare_env.py DUMP PROFILE"""

from __future__ import annotations

import ast
import gzip
import json
import sys

TYPES = {"EnvBool": "bool", "EnvInt": "int", "EnvFloat": "float", "EnvStr": "str",
         "EnvJSON": "json", "EnvTuple": "tuple"}

real = json.load(open(sys.argv[1]))
env = json.load(gzip.open(sys.argv[2]))["env"]
reg = env["registry"]
bad = 0
for name, r in real["registry"].items():
    ours = reg.get(name)
    want = TYPES.get(r["class"].replace("WithAlias", ""), "other")
    if ours is None:
        print("MISSING", name)
        bad += 1
        continue
    try:
        default = ast.literal_eval(r["default"])
        default = None if default is None else str(default)
    except (ValueError, SyntaxError):
        default = "<callable>"
    problems = []
    if ours["type"] != want:
        problems.append(f"type {ours['type']} != {want}")
    if default != "<callable>" and ours["default"] != default:
        problems.append(f"default {ours['default']!r} != {default!r}")
    if r["deprecated_name"] and reg.get(r["deprecated_name"], {}).get("alias_of") != name:
        problems.append(f"alias {r['deprecated_name']} not recorded")
    if problems:
        bad += 1
        print(name, "; ".join(problems))
aliases = {r["deprecated_name"] for r in real["registry"].values() if r["deprecated_name"]}
extra = set(reg) - set(real["registry"]) - aliases
forwarded = {n for n in extra if reg[n].get("replacement")}
print("static-only names:", sorted(extra - forwarded)[:20], "forwarded deprecated:", len(forwarded))
for name in real["deprecated_table"]:
    if name not in env["removed_hints"] and not reg.get(name, {}).get("deprecated"):
        print("deprecated-table entry not recorded:", name)
        bad += 1
print(bad, "problems;", len(real["registry"]), "real envs")
