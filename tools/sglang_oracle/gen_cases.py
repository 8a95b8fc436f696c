"""Adversarial SGLang argv cases from the real parser's dump, independent of servelint.

    python3 gen_cases.py DUMP.json OUT.json [NEIGHBOUR.whl ...]

DUMP.json is dump_parser.py's output for one release (the real argparse actions, their
``type`` function names and the literals that code compares against). Nothing here reads
servelint's profiles or rule code. Per option, value classes by what the real action is:
sentinels and every literal its code compares against, empty and whitespace, case variants,
numbers in every spelling (``1k``, ``1K``, ``1e3``, ``0x10``, ``_1``, ``1.5Mi``, negative,
Unicode digits), JSON edge cases, bools as strings; plus the flag spellings (``=`` form,
underscores, prefixes, missing value) and the flags a neighbouring release's wheel names
that this one may lack (a plain text scan of the neighbour's option declarations).
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

BASE = ["--model-path", "m"]
INTS = [
    "0",
    "1",
    "-1",
    "+1",
    "007",
    "1_000",
    "_1",
    "1_",
    "0x10",
    "0b1",
    "0o7",
    "1e3",
    "1.0",
    " 1 ",
    "1\t",
    "",
    " ",
    "\u0661\u0662",
    "1k",
    "1K",
    "9" * 25,
    "-0",
    "true",
    "True",
    "None",
    "none",
    "null",
    "nan",
    "inf",
    "1,000",
    "1 000",
]
FLOATS = [
    "0",
    "0.5",
    "-0.5",
    "+.5",
    ".5",
    "5.",
    "1e3",
    "1E-3",
    "1_0.5",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "Infinity",
    "infinity",
    "0x1p3",
    "",
    " ",
    " 0.5 ",
    "1,5",
    "1k",
    "true",
    "None",
    "none",
    "\u0661.5",
    "1e400",
    "-1e-400",
]
HUMAN = [
    "1k",
    "1K",
    "1Ki",
    "1ki",
    "1KI",
    "1.5k",
    "1.5K",
    "1.5Ki",
    "1.5Mi",
    "1.5Gi",
    "1.0Gi",
    "25.6k",
    "1M",
    "1m",
    "1G",
    "1T",
    "1P",
    "1Ti",
    "1Pi",
    "-1k",
    "+1k",
    " 1k ",
    "1 k",
    "1e3",
    "0x10",
    "1_000",
    "1_000k",
    "\u0661k",
    "1.k",
    ".5k",
    "1.5",
    "1Kib",
    "1kb",
    "k",
    "0k",
    "-1",
    "0",
    "4096",
    " 4096 ",
    "",
    " ",
]
JSONS = [
    "[]",
    "{}",
    "[1, 2]",
    '["a", "b"]',
    "null",
    "NaN",
    "[NaN]",
    "Infinity",
    "[1e400]",
    "[" + "9" * 30 + "]",
    '"s"',
    "'s'",
    "[1,]",
    "{'a': 1}",
    "",
    " ",
    "  []  ",
    "true",
    "True",
    "tru",
    "[",
    '{"a": 1}',
    '{"a": {"b": [1, {"c": null}]}}',
    '["\\ud800"]',
    '{"a": 1, "a": 2}',
    "1",
    "-0",
    "[1] x",
    "\ufeff[]",
]
STRS = ["", " ", "none", "None", "null", "x", "a b", "-x", "a=b", "{}", "0", "true", "\u00e9"]
BOOLS = ["true", "false", "True", "1", "0", "yes", "", "none"]


def spellings(text: str) -> list[str]:
    return sorted(
        {
            text,
            text.upper(),
            text.lower(),
            text.title(),
            f" {text}",
            f"{text} ",
            text + "x",
            text[:-1] if len(text) > 1 else text + text,
        }
    )


def values_for(act: dict) -> list[str]:
    typ, choices = act["type"], act.get("choices")
    lits = [w for w in act.get("literals") or [] if re.fullmatch(r"[\w.+-]{1,40}", w)]
    out: list[str] = []
    if choices:
        for c in choices:
            out += spellings(c)
        out += ["", "none", "None", "nope_xyz"]
    if typ == "int":
        out += INTS
    elif typ == "float":
        out += FLOATS
    elif typ == "human_readable_int":
        out += HUMAN + INTS[:8]
    elif typ in {"loads", "json_list_type"}:
        out += JSONS
    elif typ not in {"str", "None"} or act["class"] not in {"_StoreAction", "_AppendAction"}:
        out += STRS + JSONS[:12]
    else:
        out += STRS
    for lit in lits:
        out += spellings(lit)
    if len(lits) >= 2 and typ not in {"int", "float"}:
        out += object_cases(lits)
    return list(dict.fromkeys(out))


def object_cases(lits: list[str]) -> list[str]:
    """JSON objects made of the literals the type function compares against (phases, keys,
    backends): nested one level, with a valid-looking and a wrong-typed value."""
    words = [w for w in lits if re.fullmatch(r"[A-Za-z_][\w.-]*", w)][:12]
    out = []
    for i, outer in enumerate(words):
        inner = words[(i + 1) % len(words)]
        out += [
            json.dumps({outer: {inner: 1}}),
            json.dumps({outer: {}}),
            json.dumps({outer: 1}),
            json.dumps({outer: {inner: outer}}),
            json.dumps({outer: {"backend": inner}}),
        ]
    return out


def flag_cases(act: dict, all_flags: set[str]) -> list[tuple[str, list[str]]]:
    longs = [o for o in act["option_strings"] if o.startswith("--")]
    if not longs:
        return []
    flag = longs[0]
    takes = act["nargs"] != 0 and act["class"] not in {
        "_StoreTrueAction",
        "_StoreFalseAction",
        "_StoreConstAction",
        "_HelpAction",
        "_CountAction",
    }
    out: list[tuple[str, list[str]]] = []
    if act["dest"] == "help":
        return [("help", ["--help"]), ("help-short", ["-h"])]
    if takes:
        for k, v in enumerate(values_for(act)):
            out.append((f"v{k}", [flag, v]))
            if k % 3 == 0:
                out.append((f"eq{k}", [f"{flag}={v}"]))
        out.append(("missing", [flag]))
        out.append(("twice", [flag, (act.get("choices") or ["1"])[0]] * 2))
        if act["nargs"] in ("+", "*"):
            out.append(("multi", [flag, "a", "b"]))
    else:
        out += [
            ("alone", [flag]),
            ("eq-true", [f"{flag}=true"]),
            ("value", [flag, "true"]),
            ("twice", [flag, flag]),
        ]
    out.append(("under", ["--" + flag[2:].replace("-", "_")] + (["1"] if takes else [])))
    out.append(("upper", [flag.upper()] + (["1"] if takes else [])))
    for cut in sorted({len(flag) - 1, max(4, len(flag) * 2 // 3), 5}):
        prefix = flag[:cut]
        if prefix not in all_flags and len(prefix) > 3:
            out.append((f"prefix{cut}", [prefix] + (["1"] if takes else [])))
    if flag.startswith("--no-") is False and act["class"] == "BooleanOptionalAction":
        out.append(("neg", ["--no-" + flag[2:]]))
    return out


def neighbour_flags(wheel: str) -> set[str]:
    """Option strings a neighbouring release declares, by a text scan of its wheel."""
    found: set[str] = set()
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if not (
                name == "sglang/srt/server_args.py"
                or name.startswith("sglang/srt/arg_groups/fields/")
            ) or not name.endswith(".py"):
                continue
            text = zf.read(name).decode(errors="replace")
            found |= set(re.findall(r"""["'](--[a-z][a-z0-9-]+)["']""", text))
            found |= {
                "--" + m.replace("_", "-")
                for m in re.findall(r"^    ([a-z][a-z0-9_]*): A\[", text, flags=re.M)
            }
    return found


def main() -> None:
    dump = json.load(open(sys.argv[1]))
    out_path = sys.argv[2]
    all_flags = {o for a in dump["actions"] for o in a["option_strings"]}
    cases: list[dict] = []
    for act in dump["actions"]:
        if act["dest"] == "model_path":
            continue
        name = act["dest"]
        for cid, toks in flag_cases(act, all_flags):
            cases.append({"id": f"{name}:{cid}", "argv": BASE + toks})
    for wheel in sys.argv[3:]:
        tag = Path(wheel).name.split("-")[1]
        for flag in sorted(neighbour_flags(wheel) - all_flags):
            cases.append({"id": f"neighbour-{tag}:{flag}", "argv": BASE + [flag]})
            cases.append({"id": f"neighbour-{tag}:{flag}:v", "argv": BASE + [flag, "1"]})
    cases += [
        {"id": "model:missing", "argv": ["--tp-size", "1"]},
        {"id": "model:eq", "argv": ["--model-path=m"]},
        {"id": "model:empty", "argv": ["--model-path", ""]},
        {"id": "model:positional", "argv": ["m"]},
        {"id": "dashdash", "argv": BASE + ["--"]},
        {"id": "dashdash-x", "argv": BASE + ["--", "x"]},
    ]
    seen: set[tuple[str, ...]] = set()
    unique = []
    for case in cases:
        key = tuple(case["argv"])
        if key not in seen:
            seen.add(key)
            unique.append(case)
    json.dump(unique, open(out_path, "w"), indent=0)
    print(len(unique), "cases")


if __name__ == "__main__":
    main()
