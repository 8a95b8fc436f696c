"""Dump the real parser's actions as JSON: VENV/bin/python dump_parser.py OUT.json"""

from __future__ import annotations

import argparse
import json
import sys

from oracle_common import build_parser

parser, _ = build_parser()
actions = []
for act in parser._actions:
    actions.append({
        "dest": act.dest, "option_strings": act.option_strings, "class": type(act).__name__,
        "nargs": act.nargs if not isinstance(act.nargs, str) or act.nargs in "?*+" else str(act.nargs),
        "choices": sorted(map(str, act.choices)) if act.choices is not None else None,
        "default": repr(act.default) if act.default is not argparse.SUPPRESS else "SUPPRESS",
        "type": getattr(act.type, "__name__", repr(act.type)),
        "const": repr(act.const), "required": act.required,
    })
out = {"prog": parser.prog, "allow_abbrev": parser.allow_abbrev,
       "prefix_chars": parser.prefix_chars, "actions": actions}
json.dump(out, open(sys.argv[1], "w"), indent=1, sort_keys=True)
print(len(actions), "actions")
