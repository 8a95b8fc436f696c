#!/usr/bin/env python3
"""Generate the adversarial conformance corpus of one vLLM release (deterministic, seeded).

    python3 tools/oracle/make_adversarial.py 0.33.0 [--source WHEEL_OR_DIR] [--dumps DIR] \
        [--seed 14] [--moe-cap 2000] [--wide] \
        [--out tests/conformance/adversarial/0.33.0.cases.jsonl.gz]

Independent of servelint: it reads nothing from `src/servelint` (no profile, no rule). Its
inputs are the dumps `dump_parser.py` takes of the real release (parser.json,
config_classes.json, enums.json under DIR/VERSION, the neighbouring releases' parser.json
for flags added/removed) and, with --source, the release's own Python files (a wheel or a
site-packages dir), scanned with `ast` for the string literals the code compares option
values against (`x.tokenizer_mode == "mistral"`, `args.foo in ("a", "b")`, match cases).

For every option and every nested config field (dotted `--opt.field V` and JSON
`--opt '{"field": V}'`) it writes value classes by type: sentinels and every literal the
code compares against, empty, whitespace, case variants, numbers in every spelling
(1k 1K 1e3 0x10 _1 1.5Mi, negative, ...), JSON edge cases, bools as strings; plus flags
removed or added between neighbouring releases. --wide adds two classes for a release
whose parser is too small for 10,000 cases (0.11.0: 185 options, 18 config classes, 6,816
cases without it): every option value again in the `--opt=VALUE` spelling (argparse treats
`-1` or ` 2` differently there), and the nested fields of a plain-JSON option whose dest
names a dumped config class (`--speculative-config` -> SpeculativeConfig). The other
releases' corpora are made without it. Every case runs the deep stages
(engine_config, renderer) on the dense fake model (llama); cases whose value reaches a late
check (a choice, a registry member, a literal from the code) run again on the MoE fake
model (mixtral), at most --moe-cap of them (round-robin over options, seeded). Measured
cost on 0.33.0: ~0.1 s per case in the oracle (fork + stages), so ~17k cases ~ 30 min.

One case per line: {"id", "argv" (after `vllm serve`), "origin", "deep", optional
"fake_model", "value_of" (the dest or config path the case varies)}.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import random
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

RELEASES = ("0.11.0", "0.21.0", "0.27.1", "0.33.0")
REPO = Path(__file__).resolve().parents[2]
DEFAULT_DUMPS = Path("/work/shared/tools/oracle/out")
OUT_DIR = REPO / "tests" / "conformance" / "adversarial"
BAD = "nope_xyz"
SKIP_DESTS = {"help", "version", "config"}

# ---- value classes by type ------------------------------------------------------

SENTINELS = ("none", "None", "null", "auto", "AUTO", "default", "", " ")
BOOL_STRINGS = ("true", "True", "false", "FALSE", "1", "0", "yes", "no")
INT_SPELLINGS = (
    "0",
    "1",
    "-1",
    "+2",
    "1k",
    "1K",
    "1m",
    "1M",
    "1g",
    "1G",
    "1Ki",
    "1Mi",
    "1.5k",
    "1.5Mi",
    "1e3",
    "1E3",
    "0x10",
    "0o10",
    "0b10",
    "_1",
    "1_000",
    "1.0",
    "1.5",
    " 2",
    "2 ",
    "abc",
    "1kb",
    "inf",
    "nan",
    "-0",
    "99999999999999999999",
)
FLOAT_SPELLINGS = (
    "0",
    "0.5",
    "1",
    "1.5",
    "-0.1",
    ".5",
    "5.",
    "1e-3",
    "1E2",
    "inf",
    "-inf",
    "nan",
    "0x10",
    "1_0.5",
    "abc",
    "1/2",
    " 0.5",
    "1k",
)
JSON_EDGES = (
    "{}",
    "[]",
    "null",
    '""',
    "1",
    "true",
    "{",
    "{'a': 1}",
    '{"bogus": 1}',
    " {} ",
    "{}{}",
    '{"a": NaN}',
    '{"a": 1, "a": 2}',
    '[{"a": 1}]',
    "x",
)
# JSON values for nested fields (JSON text), by field kind
J_BOOL = ("true", "false", '"true"', '"True"', "1", "0", '"yes"', "null", '"x"')
J_INT = ("0", "1", "-1", "2", '"2"', '"1k"', '"0x10"', "1.5", "1e3", "true", "null", '"abc"', "[]")
J_FLOAT = ("0", "0.5", "-1.5", '"0.5"', '"inf"', '"nan"', "true", "null", '"abc"', "1e309")
J_STR = ('""', '" "', '"none"', '"x"', "1", "null", "[]")
J_LIST = ("[]", "[1, 2]", '["a"]', '"a,b"', "1", "null", "{}")
J_DICT = ("{}", '{"a": 1}', '"x"', "[]", "null")
# dotted values (text after `--opt.field`), by field kind
D_BOOL = ("true", "false", "True", "1", "0", "yes", "", "x")
D_INT = ("0", "1", "-1", "2", "1k", "1K", "1e3", "0x10", "_1", "1.5Mi", "1.5", "abc", "")
D_FLOAT = ("0", "0.5", "-1.5", "inf", "nan", "1e-3", "abc", "1k")
D_STR = ("", " ", "none", "x")
D_LIST = ("[1,2]", "1", "a,b", "[]")


def case_variants(word: str) -> list[str]:
    out = {word, word.upper(), word.lower(), word.title(), f" {word}", f"{word} "}
    if "-" in word or "_" in word:
        out.add(word.replace("-", "_") if "-" in word else word.replace("_", "-"))
    out.discard(word)
    return sorted(out)


def literal_values(field: dict) -> list[str]:
    vals = [str(v) for v in field.get("literal_values") or [] if v is not None]
    for members in (field.get("enum_members") or {}).values():
        vals.extend(members)
    return vals


def field_kind(field: dict) -> str:
    t = str(field.get("type") or "")
    if literal_values(field):
        return "choice"
    base = re.sub(r"\s*\|\s*None$|^Optional\[(.*)\]$", r"\1", t).strip() or t
    if base.startswith(("list[", "set[", "tuple[")) or base == "list":
        return "list"
    if base.startswith("dict") or base == "Any":
        return "dict"
    for kind in ("bool", "int", "float", "str"):
        if base == kind:
            return kind
    return "other"


# ---- literals the release's code compares against ---------------------------------


def _source_files(source: Path) -> Iterator[tuple[str, str]]:
    if source.is_file() and source.suffix == ".whl":
        with zipfile.ZipFile(source) as zf:
            for name in sorted(zf.namelist()):
                if name.startswith("vllm/") and name.endswith(".py"):
                    yield name, zf.read(name).decode("utf-8", "replace")
        return
    root = source / "vllm" if (source / "vllm").is_dir() else source
    for path in sorted(root.rglob("*.py")):
        yield str(path.relative_to(root.parent)), path.read_text("utf-8", "replace")


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)  # args["tokenizer_mode"]
    return None


def _str_consts(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def code_literals(source: Path, names: set[str]) -> dict[str, set[str]]:
    """name -> string literals compared with `<...>.name` in the release's code."""
    found: dict[str, set[str]] = {}
    for _, text in _source_files(source):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                for a, b in zip(sides, sides[1:], strict=False):
                    for x, y in ((a, b), (b, a)):
                        name = _name_of(x)
                        if name in names:
                            found.setdefault(name, set()).update(_str_consts(y))
            elif isinstance(node, ast.Match):
                name = _name_of(node.subject)
                if name in names:
                    for mc in node.cases:
                        if isinstance(mc.pattern, ast.MatchValue):
                            found.setdefault(name, set()).update(_str_consts(mc.pattern.value))
    return {k: {v for v in vs if len(v) <= 64 and "\n" not in v} for k, vs in found.items()}


# ---- the corpus -------------------------------------------------------------------


class Corpus:
    def __init__(self, seed: int) -> None:
        self.cases: list[dict] = []
        self._seen: set[str] = set()
        self.seed = seed

    def add(
        self,
        origin: str,
        argv: list[str],
        value_of: str = "",
        late: bool = False,
        fake_model: str | None = None,
    ) -> None:
        key = json.dumps([argv, fake_model], sort_keys=True)
        if key in self._seen:
            return
        self._seen.add(key)
        digest = hashlib.sha1(f"{self.seed}:{key}".encode()).hexdigest()[:10]
        case: dict = {
            "id": f"{origin}:{digest}",
            "argv": argv,
            "origin": origin,
            "deep": True,
            "late_reaching": late,
        }
        if fake_model:
            case["fake_model"] = fake_model
        if value_of:
            case["value_of"] = value_of
        self.cases.append(case)


def option_values(act: dict, literals: set[str]) -> list[tuple[str, bool]]:
    """(value, reaches a late check) for one value-taking option."""
    typ = str(act.get("type") or "str")
    out: list[tuple[str, bool]] = [(v, False) for v in SENTINELS]
    choices = [str(c) for c in act.get("choices") or [] if c is not None]
    metavar = act.get("metavar")
    if isinstance(metavar, str) and metavar.startswith("{"):
        choices += [x for x in metavar.strip("{}").split(",") if x]
    for c in choices:
        out += [(c, True)] + [(v, False) for v in case_variants(c)]
    for lit in sorted(literals):
        out += [(lit, True)] + [(v, True) for v in case_variants(lit)[:2]]
    out.append((BAD, bool(choices or literals)))
    if "human_readable_int" in typ or re.search(r"(^|\()int", typ):
        out += [(v, False) for v in INT_SPELLINGS]
    elif "float" in typ:
        out += [(v, False) for v in FLOAT_SPELLINGS]
    elif "json" in typ or "union_dict_and_str" in typ:
        out += [(v, False) for v in JSON_EDGES]
    else:
        out += [(v, False) for v in BOOL_STRINGS[:3]]
    return out


def option_cases(
    corpus: Corpus, parser: dict, literals: dict[str, set[str]], wide: bool = False
) -> None:
    for act in parser["actions"]:
        if act.get("positional") or act["dest"] in SKIP_DESTS:
            continue
        opts = [o for o in act["option_strings"] if o.startswith("--")] or act["option_strings"]
        if not opts:
            continue
        opt, dest = opts[0], act["dest"]
        if not act.get("takes_value"):
            for spelled in act["option_strings"]:
                corpus.add("bool", ["m", spelled], dest)
            for v in BOOL_STRINGS[:4]:
                corpus.add("bool-value", ["m", f"{opt}={v}"], dest)
            corpus.add("bool-value", ["m", opt, "true"], dest)
            continue
        for value, late in option_values(act, literals.get(dest, set())):
            corpus.add("value", ["m", opt, value], dest, late)
            if wide:
                corpus.add("value-equals", ["m", f"{opt}={value}"], dest)
        corpus.add("equals", ["m", f"{opt}="], dest)
        corpus.add("missing-value", ["m", opt], dest)
        if act.get("nargs") in ("+", "*"):
            corpus.add("nargs", ["m", opt, "a", "b"], dest)
            corpus.add("nargs", ["m", opt, "a,b"], dest)
        for alias in act["option_strings"][1:]:
            corpus.add("alias", ["m", alias, "1"], dest)


def _config_options(parser: dict, configs: dict, wide: bool = False) -> dict[str, str]:
    """--option -> config class, for options whose type is dataclass-json(Class); with
    `wide`, also plain-JSON options whose dest names a config class (speculative_config)."""
    by_dest = {name.lower(): name for name in configs}
    out: dict[str, str] = {}
    for act in parser["actions"]:
        typ = str(act.get("type"))
        m = re.search(r"dataclass-json\((\w+)\)", typ)
        cls = m.group(1) if m else None
        if cls is None and wide and "json" in typ:
            cls = by_dest.get(act["dest"].replace("_", ""))
        if cls:
            for opt in act["option_strings"]:
                if opt.startswith("--"):
                    out[opt] = cls
    return out


def _nested_class(field: dict, configs: dict) -> str | None:
    t = str(field.get("type") or "")
    for cls in configs:
        if re.search(rf"(^|[.\[ ]){cls}([\] |,]|$)", t) and cls.endswith("Config"):
            return cls
    return None


def iter_fields(
    configs: dict, cls: str, prefix: str = "", depth: int = 0
) -> Iterator[tuple[str, dict]]:
    for field in (configs.get(cls) or {}).get("fields", []):
        path = f"{prefix}{field['name']}"
        inner = _nested_class(field, configs)
        if inner and depth < 1 and "SkipValidation" not in str(field.get("type")):
            yield from iter_fields(configs, inner, path + ".", depth + 1)
        else:
            yield path, field


def nested_values(field: dict, literals: set[str]) -> tuple[list, list]:
    """(dotted values, JSON values) with whether each reaches a late check."""
    kind = field_kind(field)
    lits = literal_values(field)
    dotted: list[tuple[str, bool]] = []
    js: list[tuple[str, bool]] = []
    if kind == "choice" or literals:
        for v in sorted(set(lits) | literals):
            variants = case_variants(v)[:2]
            dotted += [(v, True)] + [(x, True) for x in variants]
            js += [(json.dumps(v), True)] + [(json.dumps(x), True) for x in variants[:1]]
        dotted += [(BAD, True), ("", False), ("none", True)]
        js += [(json.dumps(BAD), True), ("null", False), ("1", False)]
    table = {
        "bool": (D_BOOL, J_BOOL),
        "int": (D_INT, J_INT),
        "float": (D_FLOAT, J_FLOAT),
        "str": (D_STR, J_STR),
        "list": (D_LIST, J_LIST),
        "dict": (("x", "{}"), J_DICT),
    }
    if kind in table:
        d, j = table[kind]
        dotted += [(v, False) for v in d]
        js += [(v, False) for v in j]
    elif kind == "other":
        dotted += [("x", False), ("", False), ("1", False)]
        js += [('"x"', False), ("null", False), ("{}", False)]
    return dotted, js


def config_cases(
    corpus: Corpus, parser: dict, configs: dict, literals: dict[str, set[str]], wide: bool = False
) -> None:
    for opt, cls in sorted(_config_options(parser, configs, wide).items()):
        for body in JSON_EDGES:
            corpus.add("config-json", ["m", opt, body], opt)
        corpus.add("config-dotted", ["m", f"{opt}.nope_field", "1"], opt)
        for path, field in iter_fields(configs, cls):
            dotted, js = nested_values(field, literals.get(field["name"], set()))
            target = f"{opt[2:].replace('-', '_')}.{path}"
            for value, late in dotted:
                corpus.add("dotted", ["m", f"{opt}.{path}", value], target, late)
            for value, late in js:
                corpus.add("json-field", ["m", opt, _json_body(path, value)], target, late)


def _json_body(path: str, value_json: str) -> str:
    parts = path.split(".")
    text = value_json
    for part in reversed(parts):
        text = "{" + json.dumps(part) + ": " + text + "}"
    return text


def churn_cases(corpus: Corpus, version: str, parsers: dict[str, dict]) -> None:
    """Flags added or removed between this release and its neighbours."""
    i = RELEASES.index(version)
    mine = set(parsers[version]["option_index"])
    for j in (i - 1, i + 1):
        if not 0 <= j < len(RELEASES) or RELEASES[j] not in parsers:
            continue
        other = parsers[RELEASES[j]]
        theirs = set(other["option_index"])
        by_opt = {o: a for a in other["actions"] for o in a["option_strings"]}
        for opt in sorted(theirs - mine):  # in the neighbour only
            act = by_opt.get(opt) or {}
            tail = ["1"] if act.get("takes_value") else []
            corpus.add("churn-gone", ["m", opt, *tail], opt)
        for opt in sorted(mine - theirs):  # new here (or gone in the next release)
            act = next((a for a in parsers[version]["actions"] if opt in a["option_strings"]), {})
            tail = ["1"] if act.get("takes_value") else []
            corpus.add("churn-new", ["m", opt, *tail], opt)


def enum_cases(corpus: Corpus, enums: dict, parser: dict) -> None:
    """Every registry member (attention / mamba / prefill backends) where an option takes it."""
    dests = {a["dest"]: a for a in parser["actions"] if a.get("takes_value")}
    for name, body in sorted(enums.items()):
        short = name.rsplit(".", 1)[-1]
        members = [m["name"] for m in body.get("members", [])]
        for dest in ("attention_backend", "mamba_backend"):
            if dest in dests and short.lower().startswith(dest.split("_")[0]):
                opt = dests[dest]["option_strings"][0]
                for m in members:
                    corpus.add("registry", ["m", opt, m], dest, True)
                    corpus.add("registry", ["m", opt, m.lower()], dest, True)


def combo_cases(corpus: Corpus, parser: dict) -> None:
    """Options whose meaning depends on another one (tool parser with/without auto choice)."""
    dests = {a["dest"]: a for a in parser["actions"]}
    if "tool_call_parser" in dests and "enable_auto_tool_choice" in dests:
        for v in ("hermes", BAD, "none", ""):
            corpus.add(
                "combo",
                ["m", "--enable-auto-tool-choice", "--tool-call-parser", v],
                "tool_call_parser",
                True,
            )
    corpus.add("combo", ["m", "--enable-auto-tool-choice"], "enable_auto_tool_choice", True)


def add_moe_twins(corpus: Corpus, cap: int, seed: int) -> None:
    """Every case runs the deep stages on the dense fake model (llama); at most `cap` of the
    late-reaching ones run again on the MoE fake model (mixtral), chosen round-robin over
    the options and fields they vary (seeded)."""
    groups: dict[str, list[dict]] = {}
    for c in corpus.cases:
        if c.pop("late_reaching"):
            groups.setdefault(c.get("value_of", ""), []).append(c)
    rng = random.Random(seed)
    queues = [groups[k] for k in sorted(groups)]
    for q in queues:
        rng.shuffle(q)
    twins: list[dict] = []
    while len(twins) < cap and any(queues):
        for q in queues:
            if q and len(twins) < cap:
                c = q.pop()
                twins.append(dict(c, id=c["id"] + ":moe", fake_model="mixtral"))
    corpus.cases.extend(twins)


def build(
    version: str, dumps: Path, source: Path | None, seed: int, moe_cap: int, wide: bool = False
) -> list[dict]:
    parsers = {
        v: json.loads((dumps / v / "parser.json").read_text())
        for v in RELEASES
        if (dumps / v / "parser.json").is_file()
    }
    parser = parsers[version]
    configs = json.loads((dumps / version / "config_classes.json").read_text())
    enums = json.loads((dumps / version / "enums.json").read_text())
    names = {a["dest"] for a in parser["actions"]}
    names |= {f["name"] for c in configs.values() for f in c.get("fields", [])}
    literals = code_literals(source, names) if source else {}
    corpus = Corpus(seed)
    option_cases(corpus, parser, literals, wide)
    config_cases(corpus, parser, configs, literals, wide)
    churn_cases(corpus, version, parsers)
    enum_cases(corpus, enums, parser)
    combo_cases(corpus, parser)
    add_moe_twins(corpus, moe_cap, seed)
    ids = [c["id"] for c in corpus.cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return corpus.cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("version", choices=RELEASES)
    ap.add_argument("--dumps", type=Path, default=DEFAULT_DUMPS)
    ap.add_argument("--source", type=Path, help="the release's wheel or site-packages dir")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--moe-cap", type=int, default=2000)
    ap.add_argument(
        "--wide", action="store_true", help="add the --opt=VALUE and JSON-option classes"
    )
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    cases = build(a.version, a.dumps, a.source, a.seed, a.moe_cap, a.wide)
    out = a.out or OUT_DIR / f"{a.version}.cases.jsonl.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(json.dumps(c, sort_keys=True) + "\n" for c in cases).encode()
    with open(out, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
        gz.write(payload)
    counts: dict[str, int] = {}
    for c in cases:
        counts[c["origin"]] = counts.get(c["origin"], 0) + 1
    moe = sum(c.get("fake_model") == "mixtral" for c in cases)
    print(f"{len(cases)} cases ({moe} on the MoE model) -> {out}: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
