#!/usr/bin/env python3
"""Generate the conformance case corpus (deterministic): tests/conformance/cases.jsonl.

    python3 tools/oracle/make_cases.py [--dumps DIR] [--golden FILE] [--out FILE]

Inputs (none of them is imported from vLLM; plain JSON):
  * DIR/VERSION/{parser,config_classes,enums}.json: the oracle dumps of the four
    releases (dump_parser.py), default /work/shared/tools/oracle/out;
  * the golden recipe renderings (one `vllm serve MODEL ...` argv per line).

One case per line: {"id", "argv" (tokens after `vllm serve`), "origin",
optional "env", "fake_model" (mixtral for MoE/DP flags), "late" (the option
dest or config path whose value is checked late by the engine)}.
The dumps only seed the inputs; every verdict comes from the real parser.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

VERSIONS = ("0.11.0", "0.21.0", "0.27.1", "0.33.0")
REPO = Path(__file__).resolve().parents[2]
DEFAULT_DUMPS = Path("/work/shared/tools/oracle/out")
DEFAULT_GOLDEN = Path("/work/shared/corpus/recipes-golden.jsonl")
DEFAULT_OUT = REPO / "tests" / "conformance" / "cases.jsonl"

# Mutation kinds are sampled (1 case in N, by a hash of the case id) to keep one oracle
# run per release affordable on a shared 2-core host; every recipe, flag and late value stays.
SAMPLE_ONE_IN = {"misspelling": 3, "underscore": 6, "equals": 4, "abbrev": 6,
                 "bool-with-value": 5, "bad-type": 2, "ambiguous-prefix": 2,
                 "dotted-value": 3, "dotted-bad-value": 3}
MOE_HINTS = ("expert", "data-parallel", "data_parallel", "-dp", "eplb", "moe")
SKIP_DESTS = {"help", "version"}
BAD = "nope_xyz"


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _fake_model(argv: list[str]) -> str | None:
    flags = [t for t in argv if t.startswith("-")]
    return "mixtral" if any(h in f for f in flags for h in MOE_HINTS) else None


class Corpus:
    def __init__(self) -> None:
        self.cases: list[dict] = []
        self._seen: set[str] = set()

    def add(self, origin: str, argv: list[str], env: dict | None = None,
            late: str | None = None, fake_model: str | None = None, name: str = "") -> None:
        key = json.dumps([argv, env or {}], sort_keys=True)
        if key in self._seen:
            return
        self._seen.add(key)
        digest = hashlib.sha1(key.encode()).hexdigest()[:8]
        slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:60] if name else ""
        every = SAMPLE_ONE_IN.get(origin, 1)
        if every > 1 and int(digest, 16) % every:
            return
        case: dict = {"id": f"{origin}:{slug}:{digest}" if slug else f"{origin}:{digest}",
                      "argv": argv, "origin": origin}
        if env:
            case["env"] = env
        fm = fake_model or _fake_model(argv)
        if fm:
            case["fake_model"] = fm
        if late:
            case["late"] = late
        self.cases.append(case)


# ---- values ---------------------------------------------------------------

def valid_value(action: dict) -> str | None:
    """A value of the action's own type (None: the action takes no value)."""
    if not action.get("takes_value"):
        return None
    if action.get("choices"):
        return str(action["choices"][0])
    typ = str(action.get("type") or "str")
    if "dataclass-json" in typ or "json" in typ or typ == "union_dict_and_str":
        return "{}"
    if "human_readable_int" in typ:
        return "2048"
    if "int" in typ:
        return "2"
    if "float" in typ:
        return "0.5"
    if "reasoning_parser" in typ:
        return "qwen3"
    if "<lambda>" in typ:
        return "0"
    return "x"


def bad_type_value(action: dict) -> str | None:
    typ = str(action.get("type") or "")
    if action.get("choices"):
        return BAD
    if re.search(r"(^|\()(int|float|human_readable_int)", typ):
        return "abc"
    if "dataclass-json" in typ or "json.loads" in typ:
        return "{not json"
    return None


def one_edit(flag: str, seed: int) -> str:
    """A one-edit misspelling of a long option (kind chosen by seed)."""
    body = flag[2:]
    pos = 1 + seed % max(1, len(body) - 2)
    kind = seed % 4
    if kind == 0 and pos + 1 < len(body):  # transposition
        body = body[:pos] + body[pos + 1] + body[pos] + body[pos + 2:]
    elif kind == 1:  # deletion (inside, not at the end: that would be a prefix)
        body = body[:pos] + body[pos + 1:]
    elif kind == 2:  # substitution
        body = body[:pos] + ("x" if body[pos] != "x" else "z") + body[pos + 1:]
    else:  # insertion
        body = body[:pos] + "e" + body[pos:]
    return "--" + body


# ---- sources ----------------------------------------------------------------

def recipe_cases(corpus: Corpus, golden: Path) -> None:
    rows = [json.loads(line) for line in golden.read_text().splitlines() if line.strip()]
    items = []
    for row in rows:
        argv = list(row["argv"])
        if argv[:2] != ["vllm", "serve"]:
            continue
        rest = argv[2:]
        if rest and not rest[0].startswith("-"):
            rest = ["m", *rest[1:]]
        env = {k: str(v) for k, v in sorted((row.get("env") or {}).items())}
        items.append((json.dumps([rest, env], sort_keys=True), rest, env))
    for _, rest, env in sorted(items):
        corpus.add("recipe", rest, env or None)


def flag_cases(corpus: Corpus, parsers: dict[str, dict]) -> None:
    """Every option string of every release, with a valid value; booleans also --no-."""
    seen: dict[tuple[str, str | None], None] = {}
    negatives: set[str] = set()
    for v in VERSIONS:
        for act in parsers[v]["actions"]:
            if act.get("positional") or act["dest"] in SKIP_DESTS:
                continue
            negatives.update(act.get("negative_option_strings") or [])
            for opt in act.get("registered_option_strings") or act["option_strings"]:
                seen.setdefault((opt, valid_value(act)), None)
    for opt, value in sorted(seen, key=lambda x: (x[0], x[1] or "")):
        argv = ["m", opt] + ([value] if value is not None else [])
        corpus.add("flag", argv, name=opt)
    for opt in sorted(negatives):
        corpus.add("flag-negative", ["m", opt], name=opt)


def _long_actions(parsers: dict[str, dict]) -> dict[str, dict]:
    """Long option string -> the newest action registering it."""
    out: dict[str, dict] = {}
    for v in VERSIONS:
        for act in parsers[v]["actions"]:
            if act.get("positional") or act["dest"] in SKIP_DESTS:
                continue
            for opt in act["option_strings"]:
                if opt.startswith("--"):
                    out[opt] = act
    return dict(sorted(out.items()))


def mutation_cases(corpus: Corpus, parsers: dict[str, dict]) -> None:
    actions = _long_actions(parsers)
    all_opts = sorted({o for v in VERSIONS for o in parsers[v]["option_index"]})
    for i, (opt, act) in enumerate(actions.items()):
        value = valid_value(act)
        tail = [value] if value is not None else []
        seed = int(hashlib.sha1(opt.encode()).hexdigest()[:6], 16) + i
        corpus.add("misspelling", ["m", one_edit(opt, seed), *tail], name=opt)
        if "-" in opt[2:]:
            corpus.add("underscore", ["m", "--" + opt[2:].replace("-", "_"), *tail], name=opt)
        if value is not None:
            corpus.add("equals", ["m", f"{opt}={value}"], name=opt)
            bad = bad_type_value(act)
            if bad is not None:
                kind = "bad-choice" if act.get("choices") else "bad-type"
                corpus.add(kind, ["m", opt, bad], name=opt)
        else:
            corpus.add("bool-with-value", ["m", f"{opt}=true"], name=opt)
        if len(opt) > 8:
            cut = max(4, (len(opt) * 2) // 3)
            corpus.add("abbrev", ["m", opt[:cut], *tail], name=opt[:cut])
    # ambiguous prefixes: shared by at least two options of some release
    prefixes = set()
    for v in VERSIONS:
        opts = [o for o in parsers[v]["option_index"] if o.startswith("--")]
        for o in opts:
            parts = o[2:].split("-")
            for k in range(1, len(parts)):
                p = "--" + "-".join(parts[:k])
                if p not in parsers[v]["option_index"] and sum(x.startswith(p) for x in opts) >= 2:
                    prefixes.add(p)
    for p in sorted(prefixes):
        corpus.add("ambiguous-prefix", ["m", p, "1"], name=p)
    for opt in all_opts:  # unknown spellings of registered single-dash aliases
        if not opt.startswith("--"):
            corpus.add("single-dash", ["m", opt + "x", "1"], name=opt)


def config_cases(corpus: Corpus, parsers: dict[str, dict], configs: dict[str, dict]) -> None:
    """Dotted keys and JSON bodies of config options (good and bad keys)."""
    json_opts: dict[str, str] = {}
    for v in VERSIONS:
        for act in parsers[v]["actions"]:
            m = re.search(r"dataclass-json\((\w+)\)", str(act.get("type")))
            if m:
                for opt in act["option_strings"]:
                    if opt.startswith("--"):
                        json_opts[opt] = m.group(1)
    for opt, cls in sorted(json_opts.items()):
        corpus.add("dotted-bad-key", ["m", f"{opt}.nope", "x"], name=opt)
        corpus.add("json-bad-key", ["m", opt, '{"bogus": 1}'], name=opt)
        corpus.add("json-empty", ["m", opt, "{}"], name=opt)
        fields: dict[str, dict] = {}
        for v in VERSIONS:
            for f in (configs[v].get(cls) or {}).get("fields", []):
                fields.setdefault(f["name"], f)
        for name, f in sorted(fields.items()):
            lits = f.get("literal_values") or []
            enums = [m for ms in (f.get("enum_members") or {}).values() for m in ms]
            if lits or enums:
                good = str((lits or enums)[0])
                corpus.add("dotted-choice", ["m", f"{opt}.{name}", good], name=f"{opt}.{name}")
                corpus.add("dotted-bad-choice", ["m", f"{opt}.{name}", BAD], name=f"{opt}.{name}")
                corpus.add("json-choice", ["m", opt, json.dumps({name: good})],
                           name=f"{opt}.{name}")
            elif str(f.get("type")) in ("int", "bool", "float"):
                good = {"int": "2", "bool": "true", "float": "0.5"}[str(f["type"])]
                corpus.add("dotted-value", ["m", f"{opt}.{name}", good], name=f"{opt}.{name}")
                corpus.add("dotted-bad-value", ["m", f"{opt}.{name}", "abc"], name=f"{opt}.{name}")


def _literal_values(configs: dict[str, dict], cls: str, field: str) -> list[str]:
    out: set[str] = set()
    for v in VERSIONS:
        for f in (configs[v].get(cls) or {}).get("fields", []):
            if f["name"] == field:
                out.update(str(x) for x in f.get("literal_values") or [])
                for ms in (f.get("enum_members") or {}).values():
                    out.update(ms)
    return sorted(out)


def _metavar_values(parsers: dict[str, dict], dest: str) -> list[str]:
    out: set[str] = set()
    for v in VERSIONS:
        for act in parsers[v]["actions"]:
            if act["dest"] != dest:
                continue
            mv = act.get("metavar")
            if isinstance(mv, list):
                out.update(map(str, mv))
            elif isinstance(mv, str) and mv.startswith("{"):
                out.update(x for x in mv.strip("{}").split(",") if x)
            out.update(map(str, act.get("choices") or []))
    return sorted(out)


def _enum_names(enums: dict[str, dict], suffix: str) -> list[str]:
    out: set[str] = set()
    for v in VERSIONS:
        for name, body in enums[v].items():
            if name.endswith(suffix):
                out.update(m["name"] for m in body.get("members", []))
    return sorted(out)


def late_cases(corpus: Corpus, parsers: dict[str, dict], configs: dict[str, dict],
               enums: dict[str, dict], golden_values: dict[str, set[str]]) -> None:
    """Values the parser leaves open and the engine checks later (+ an unknown one)."""
    sets: dict[str, list[str]] = {
        "tokenizer_mode": _metavar_values(parsers, "tokenizer_mode")
        + _literal_values(configs, "ModelConfig", "tokenizer_mode"),
        "quantization": _literal_values(configs, "SpeculativeConfig", "quantization"),
        "attention_backend": _enum_names(enums, "AttentionBackendEnum")
        + _enum_names(enums, "._Backend"),
        "mamba_backend": _enum_names(enums, "MambaBackendEnum"),
        "tool_call_parser": _metavar_values(parsers, "tool_call_parser"),
        "reasoning_parser": _metavar_values(parsers, "reasoning_parser"),
    }
    for dest, extra in golden_values.items():
        sets.setdefault(dest, []).extend(extra)
    for dest, values in sorted(sets.items()):
        flag = "--" + dest.replace("_", "-")
        vals = sorted(set(values)) + [BAD]
        if dest == "attention_backend":
            vals.append("flash_attn")  # case sensitivity
        for val in vals:
            pre = ["--enable-auto-tool-choice"] if dest == "tool_call_parser" else []
            corpus.add("late", ["m", *pre, flag, val], late=dest, name=f"{dest}={val}")
        if dest == "tool_call_parser":  # ignored without auto tool choice
            corpus.add("late-ignored", ["m", flag, BAD], late=dest, name=f"{dest}={BAD}")
    for val in _enum_names(enums, "AttentionBackendEnum")[:6] + [BAD]:
        corpus.add("late", ["m", "--attention-config.backend", val],
                   late="attention_config.backend", name=f"attention_config.backend={val}")
    methods = _literal_values(configs, "SpeculativeConfig", "method") + [BAD]
    for method in methods:
        body = json.dumps({"method": method, "num_speculative_tokens": 1})
        corpus.add("late", ["m", "--speculative-config", body],
                   late="speculative_config.method", name=f"speculative.method={method}")


def golden_late_values(golden: Path) -> dict[str, set[str]]:
    """Values of late-checked flags used by the real recipes."""
    out: dict[str, set[str]] = {}
    watched = {"--tokenizer-mode", "--quantization", "--attention-backend",
               "--tool-call-parser", "--reasoning-parser", "--mamba-backend"}
    for line in golden.read_text().splitlines():
        argv = json.loads(line)["argv"]
        for i, tok in enumerate(argv[:-1]):
            if tok in watched:
                out.setdefault(tok[2:].replace("-", "_"), set()).add(argv[i + 1])
    return out


def handpicked(corpus: Corpus) -> None:
    """Argv shapes the parser handles specially (see the oracle README)."""
    for argv in (
        ["m"], [], ["--model", "m"], ["m", "--served-model-name", "x"],
        ["--served-model-name", "x"], ["m", "-tp", "2", "--tensor-parallel-size", "4"],
        ["m", "-O3"], ["m", "-O", "2"], ["m", "-O=2"], ["m", "-O4"],
        ["m", "--seed", "-1"], ["m", "--trust-remote-code", "true"],
        ["m", "--enable-prefix-caching=true"], ["m", "--no-enable-prefix-caching"],
        ["m", "--disable-prefix-caching"], ["m", "--tensor_parallel_size=2"],
        ["m", "-cc.mode", "3"], ["m", "--compilation-config.mode", "3"],
        ["m", "--attention_config.mla_prefill_backend", "TOKENSPEED_MLA"],
        ["m", "--kv-transfer-config.kv_buffer_size", "1g"],
        ["m", "--compilation-config", '{"no_such": 1}'],
        ["m", "--speculative-config", '{"method": "nope"}'],
        ["m", "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, '
         '"prompt_lookup_max": 3}'],
        ["m", "--enable-auto-tool-choice"], ["m", "--omni"],
        ["m", "--gpu-memory-utilization", "1.5"], ["m", "--max-num-seqs", "-1"],
        ["m", "--block-size", "7"], ["m", "--load-format", BAD], ["m", "--model-impl", BAD],
        ["m", "--distributed-executor-backend", BAD], ["m", "--dtype", "fp7"],
        ["m", "--swap-space", "4"], ["m", "--task", "generate"],
        ["m", "--disable-log-requests"], ["m", "--guided-decoding-backend", "xgrammar"],
        ["m", "--no-such-flag", "1"], ["m", "extra_positional"], ["m", "--", "x"],
    ):
        corpus.add("handpicked", list(argv), name=" ".join(argv)[:50] or "empty")


def build(dumps: Path, golden: Path) -> list[dict]:
    parsers = {v: _load(dumps / v / "parser.json") for v in VERSIONS}
    configs = {v: _load(dumps / v / "config_classes.json") for v in VERSIONS}
    enums = {v: _load(dumps / v / "enums.json") for v in VERSIONS}
    corpus = Corpus()
    handpicked(corpus)
    recipe_cases(corpus, golden)
    flag_cases(corpus, parsers)
    mutation_cases(corpus, parsers)
    config_cases(corpus, parsers, configs)
    late_cases(corpus, parsers, configs, enums, golden_late_values(golden))
    ids = [c["id"] for c in corpus.cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return corpus.cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dumps", type=Path, default=DEFAULT_DUMPS)
    ap.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    a = ap.parse_args()
    cases = build(a.dumps, a.golden)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w") as fh:
        for c in cases:
            fh.write(json.dumps(c, sort_keys=True) + "\n")
    counts: dict[str, int] = {}
    for c in cases:
        counts[c["origin"]] = counts.get(c["origin"], 0) + 1
    print(f"{len(cases)} cases -> {a.out}: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
