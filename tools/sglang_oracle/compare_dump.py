"""Compare a real-parser dump (dump_parser.py) with a static profile's parser section.

    python compare_dump.py DUMP.json PROFILE.json.gz
Prints every difference in option strings, dest, nargs, choices, type, default, required.
"""

from __future__ import annotations

import ast
import gzip
import json
import sys

KIND = {"_StoreAction": "store", "_StoreTrueAction": "store_true", "_StoreFalseAction":
        "store_false", "_StoreConstAction": "store_const", "_HelpAction": "help",
        "BooleanOptionalAction": "boolean_optional", "_AppendAction": "append"}


def norm_default(text: str | None):
    if text is None:
        return None
    try:
        val = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    if val is None:
        return None
    if isinstance(val, (list, tuple, set)):
        return json.dumps(list(val))
    return str(val)


def main() -> None:
    real = json.load(open(sys.argv[1]))
    prof = json.load(gzip.open(sys.argv[2]))["parser"]
    ours = {tuple(a["option_strings"]): a for a in prof["actions"]}
    theirs = {tuple(a["option_strings"]): a for a in real["actions"]}
    diffs = 0
    for key in sorted(set(ours) | set(theirs)):
        a, r = ours.get(key), theirs.get(key)
        if a is None or r is None:
            print("ONLY", "static" if r is None else "real", key)
            diffs += 1
            continue
        problems = []
        if a["dest"] != r["dest"]:
            problems.append(f"dest {a['dest']} != {r['dest']}")
        kind = KIND.get(r["class"], "other")
        if a.get("action_class"):
            if a["action_class"] != r["class"]:
                problems.append(f"class {a['action_class']} != {r['class']}")
        elif a["kind"] != kind:
            problems.append(f"kind {a['kind']} != {kind}")
        rn = r["nargs"]
        an = a["nargs"] if a["kind"] not in {"store_true", "store_false", "help",
                                             "boolean_optional"} else rn
        if an != rn and not (a["kind"] == "store_const" and rn == 0):
            problems.append(f"nargs {an} != {rn}")
        if not a.get("choices_unresolved"):
            ac = sorted(a["choices"]) if a["choices"] is not None else None
            if ac != r["choices"]:
                problems.append(f"choices {ac} != {r['choices']}")
        rt = {"int": "int", "float": "float", "str": "str", "None": None,
              "human_readable_int": "human_int"}.get(r["type"], "other")
        at = a.get("type")
        if a["kind"] in {"store", "other", "append"} and at != rt and not (at == "str" and rt is None) \
                and not (at == "json" and rt == "other"):
            problems.append(f"type {at} != {r['type']}")
        if bool(a.get("required")) != bool(r["required"]):
            problems.append(f"required {a.get('required')} != {r['required']}")
        rd = norm_default(r["default"])
        if r["default"] == "SUPPRESS" and a.get("default_suppressed"):
            rd = None
        if a["kind"] not in {"help"} and a["default"] != rd and not (
                a["default"] is None and rd in {"False", None}):
            problems.append(f"default {a['default']!r} != {rd!r}")
        if problems:
            diffs += 1
            print(key, "; ".join(problems))
    print(f"{diffs} differing actions of {len(theirs)} real / {len(ours)} static")


if __name__ == "__main__":
    main()
