"""Build the conformance cases: SGLang launch argv lists from the InferenceX corpus plus
mutations.  python3 make_cases.py OUT.json

Corpus reading is a deliberately simple stand-in for the project's bash reader: join line
continuations, find `-m sglang.launch_server` / `sglang serve`, shlex-split up to the first
shell operator; a `$VAR` token after a value-taking-looking flag becomes "1", other `$` tokens
are dropped (the argv only needs to be the same for both parsers, not realistic).
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from pathlib import Path

CORPUS = Path("/work/shared/corpus/inferencex/benchmarks")
START = re.compile(r"(?:-m\s+sglang\.launch_server|\bsglang\s+serve)\b")
STOP = {"&", "&&", "|", "||", ";", ">", ">>", "2>&1", "1>&2", "2>", "<"}


def corpus_argvs() -> list[tuple[str, list[str]]]:
    out = []
    for path in sorted(CORPUS.rglob("*.sh")):
        text = re.sub(r"\\\n", " ", path.read_text(errors="replace"))
        for lineno, line in enumerate(text.splitlines(), 1):
            m = START.search(line)
            if not m or line.lstrip().startswith("#"):
                continue
            rest = line[m.end():]
            try:
                lex = shlex.shlex(rest, posix=True, punctuation_chars=False)
                lex.whitespace_split = True
                lex.commenters = "#"
                toks = list(lex)
            except ValueError:
                continue
            argv: list[str] = []
            for tok in toks:
                if tok in STOP or tok.startswith(">") or tok.endswith("&"):
                    break
                if "$" in tok or "`" in tok:
                    if argv and argv[-1].startswith("--") and "=" not in argv[-1]:
                        argv.append("1")
                    continue
                argv.append(tok)
            if argv:
                out.append((f"{path.relative_to(CORPUS)}:{lineno}", argv))
    return out


def mutations(argvs: list[list[str]], rng: random.Random) -> list[tuple[str, list[str]]]:
    base = ["--model-path", "m"]
    fixed = [
        ("tp-prefix", base + ["--tp", "2"]), ("dp-prefix", base + ["--dp", "2"]),
        ("mem-prefix", base + ["--mem-frac", "0.8"]), ("ambiguous", base + ["--enable", "x"]),
        ("underscore", base + ["--tp_size", "2"]), ("model-alias", ["--model", "m"]),
        ("no-model", ["--tp-size", "2"]), ("equals", base + ["--tp-size=2"]),
        ("bad-int", base + ["--tp-size", "two"]), ("bad-float", base + ["--mem-fraction-static", "x"]),
        ("missing-value", base + ["--tp-size"]), ("enable-ep-moe", base + ["--enable-ep-moe"]),
        ("enable-deepep-moe", base + ["--enable-deepep-moe"]),
        ("cuda-graph-max-bs", base + ["--cuda-graph-max-bs", "128"]),
        ("stream-output", base + ["--stream-output"]),
        ("disable-cuda-graph", base + ["--disable-cuda-graph"]),
        ("enable-dp-attention", base + ["--enable-dp-attention"]),
        ("bad-attn", base + ["--attention-backend", "torch_sdpa"]),
        ("fa3", base + ["--attention-backend", "fa3"]),
        ("fastokens", base + ["--tokenizer-backend", "fastokens"]),
        ("bad-quant", base + ["--quantization", "nope"]), ("fp8", base + ["--quantization", "fp8"]),
        ("kv-dtype", base + ["--kv-cache-dtype", "fp8_e4m3"]),
        ("bad-kv", base + ["--kv-cache-dtype", "int3"]),
        ("reasoning", base + ["--reasoning-parser", "qwen3"]),
        ("bad-reasoning", base + ["--reasoning-parser", "nope"]),
        ("tool", base + ["--tool-call-parser", "qwen25"]),
        ("bad-tool", base + ["--tool-call-parser", "nope"]),
        ("sampling", base + ["--sampling-backend", "pytorch"]),
        ("bad-sampling", base + ["--sampling-backend", "nope"]),
        ("moe-runner", base + ["--moe-runner-backend", "flashinfer_cutlass"]),
        ("a2a", base + ["--moe-a2a-backend", "deepep"]), ("bad-a2a", base + ["--moe-a2a-backend", "x"]),
        ("store-true-value", base + ["--trust-remote-code", "true"]),
        ("store-true-equals", base + ["--trust-remote-code=true"]),
        ("negative", base + ["--random-seed", "-1"]), ("neg-float", base + ["--mem-fraction-static", "-0.5"]),
        ("dashdash", base + ["--", "x"]), ("positional", ["m"]), ("help", ["--help"]),
        ("enable-reasoning", base + ["--enable-reasoning"]), ("single-dash", base + ["-tp-size", "2"]),
        ("nargs-plus", base + ["--cuda-graph-bs", "1", "2", "4"]),
        ("nargs-empty", base + ["--cuda-graph-bs"]),
        ("served-name", base + ["--served-model-name", "a", "b"]),
        ("speculative", base + ["--speculative-algorithm", "EAGLE3"]),
        ("bad-spec", base + ["--speculative-algorithm", "eagle9"]),
        ("nsa", base + ["--nsa-prefill-backend", "flashmla_sparse"]),
        ("dsa", base + ["--dsa-prefill-backend", "flashmla_sparse"]),
        ("piecewise", base + ["--enable-piecewise-cuda-graph"]),
        ("disable-piecewise", base + ["--disable-piecewise-cuda-graph"]),
        ("grpc-mode", base + ["--grpc-mode"]), ("load-format", base + ["--load-format", "gguf"]),
        ("bad-load-format", base + ["--load-format", "nope"]),
        ("dtype", base + ["--dtype", "bfloat16"]), ("bad-dtype", base + ["--dtype", "bf16"]),
        ("ep-size", base + ["--ep-size", "8"]), ("ep", base + ["--ep", "8"]),
        ("config-not-yaml", base + ["--config", "x.json"]),
        ("config-missing", base + ["--config", "missing.yaml"]),
        ("config-equals", base + ["--config=missing.yaml"]),
        ("prefix-equals", base + ["--tensor-parallel=2"]),
        ("short-h-value", base + ["-hx"]),
    ] + [(f"config-{name}", base + ["--config", f"tests/conformance_sglang/configs/{name}.yaml"])
         for name in ("basic", "bad_choice", "deprecated_flag", "unknown_key", "prefix_key",
                      "not_dict", "ep_moe")] + [
        ("config-after", ["--config", "tests/conformance_sglang/configs/basic.yaml",
                          "--model-path", "m", "--tp-size", "4"]),
        ("config-twice", base + ["--config", "tests/conformance_sglang/configs/basic.yaml",
                                 "--config", "tests/conformance_sglang/configs/basic.yaml"]),
        ("config-last", base + ["--config"]),
    ]
    out = [(f"mut:{k}", v) for k, v in fixed]
    for n, argv in enumerate(argvs):
        flags = [i for i, t in enumerate(argv) if t.startswith("--")]
        if not flags:
            continue
        kinds = ["typo", "drop-value", "underscore", "prefix", "bad-value"]
        for m, kind in enumerate(kinds + [rng.choice(kinds), rng.choice(kinds)]):
            out.append((f"mut{n}.{m}:{kind}", _mutate(argv, rng.choice(flags), kind)))
    return out


def _mutate(argv: list[str], i: int, kind: str) -> list[str]:
    a = list(argv)
    name, eq, val = a[i].partition("=")
    if kind == "typo":
        a[i] = (name[:-1] if len(name) > 6 else name + "x") + eq + val
    elif kind == "underscore":
        a[i] = "--" + name[2:].replace("-", "_") + eq + val
    elif kind == "prefix":
        a[i] = name[: max(4, len(name) * 2 // 3)] + eq + val
    elif kind == "drop-value":
        if i + 1 < len(a) and not a[i + 1].startswith("-"):
            del a[i + 1]
    elif kind == "bad-value":
        if eq:
            a[i] = name + "=zz_bad"
        elif i + 1 < len(a) and not a[i + 1].startswith("-"):
            a[i + 1] = "zz_bad"
    return a


def main() -> None:
    rng = random.Random(20261130)
    corpus = corpus_argvs()
    seen = set()
    cases = []
    for cid, argv in corpus:
        key = tuple(argv)
        if key in seen:
            continue
        seen.add(key)
        cases.append({"id": cid, "argv": argv})
    for cid, argv in mutations([c["argv"] for c in cases], rng):
        cases.append({"id": cid, "argv": argv})
    json.dump(cases, open(sys.argv[1], "w"), indent=0)
    print(len(corpus), "corpus argvs,", len(seen), "distinct;", len(cases), "cases")


if __name__ == "__main__":
    main()
