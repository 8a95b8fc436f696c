"""Dump the real parser's actions as JSON: VENV/bin/python dump_parser.py OUT.json

Besides argparse's own fields, each action with a custom ``type=`` function or action class
lists ``literals``: the string constants its code compares against, read from the running
release's bytecode (the function, the names it reads and their class attributes), for the
adversarial case generator (gen_cases.py). ``log_level`` lists the ``logging`` names the
release's ``getattr(logging, value.upper())`` can find.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import sys
import types

from oracle_common import build_parser

STD_TYPES = {None, int, float, str}


def _strings(value, depth: int = 0) -> set[str]:
    """String constants inside ``value`` (containers, classes' attributes, enum members)."""
    out: set[str] = set()
    if depth > 3:
        return out
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out |= _strings(k, depth + 1) | _strings(v, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            out |= _strings(v, depth + 1)
    elif inspect.isclass(value) and value.__module__.startswith("sglang"):
        for k, v in vars(value).items():
            if not k.startswith("_"):
                out |= _strings(v, depth + 1)
    elif hasattr(value, "value") and isinstance(getattr(value, "value", None), str):
        out.add(value.value)
    return out


def _code_literals(fn, depth: int = 0) -> set[str]:
    code = getattr(fn, "__code__", None)
    if code is None or depth > 2:
        return set()
    out: set[str] = set()
    glb = getattr(fn, "__globals__", {})
    for const in code.co_consts:
        if isinstance(const, str) and len(const) < 60 and "{" not in const:
            out.add(const)
        elif isinstance(const, types.CodeType):
            out |= _code_literals(types.FunctionType(const, glb), depth + 1)
        elif isinstance(const, tuple | frozenset):
            out |= {c for c in const if isinstance(c, str)}
    for name in code.co_names:
        target = glb.get(name)
        if inspect.isfunction(target) and target.__module__.startswith("sglang"):
            out |= _code_literals(target, depth + 1)
        elif target is not None and not inspect.ismodule(target):
            out |= _strings(target)
    return out


def literals(act: argparse.Action) -> list[str]:
    found: set[str] = set()
    if act.type not in STD_TYPES:
        found |= _code_literals(act.type)
    if type(act).__module__.startswith("sglang"):
        found |= _code_literals(type(act).__call__)
    return sorted(s for s in found if s.isprintable() and len(s) < 60)


parser, _ = build_parser()
actions = []
for act in parser._actions:
    entry = {
        "dest": act.dest,
        "option_strings": act.option_strings,
        "class": type(act).__name__,
        "nargs": act.nargs
        if not isinstance(act.nargs, str) or act.nargs in "?*+"
        else str(act.nargs),
        "choices": sorted(map(str, act.choices)) if act.choices is not None else None,
        "default": repr(act.default) if act.default is not argparse.SUPPRESS else "SUPPRESS",
        "type": getattr(act.type, "__name__", repr(act.type)),
        "const": repr(act.const),
        "required": act.required,
    }
    lits = literals(act)
    if act.dest == "log_level":
        lits = sorted(set(lits) | {n for n in dir(logging) if n.isupper()})
    if lits:
        entry["literals"] = lits
    actions.append(entry)
out = {
    "prog": parser.prog,
    "allow_abbrev": parser.allow_abbrev,
    "prefix_chars": parser.prefix_chars,
    "actions": actions,
}
json.dump(out, open(sys.argv[1], "w"), indent=1, sort_keys=True)
print(len(actions), "actions")
