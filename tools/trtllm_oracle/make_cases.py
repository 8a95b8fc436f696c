"""Adversarial trtllm-serve cases: the InferenceX corpus launches and their option files, mutated.

    python tools/trtllm_oracle/make_cases.py CORPUS_ROOT OUT.json [--seed N]

Independent of servelint's rules: mutations are blind text edits (option spellings with
dashes, dropped or doubled letters, case changes of values, flags given values, numbers where
words go and back, YAML 1.1 boolean spellings, keys renamed, nested keys moved, unknown
``decoding_type``s, lists where scalars go; then numbers swapped for other numbers, for the
validators' bounds). Symbolic lines of option files are dropped and
symbolic argv values replaced by a fixed sample.
"""

from __future__ import annotations

import json
import random
import re
import sys

VALUES = [
    "0",
    "1",
    "8",
    "-1",
    "1.5",
    "1e3",
    "abc",
    "",
    "TRUE",
    "true",
    "None",
    "pytorch",
    "PyTorch",
    "tensorrt",
    "trt",
    "_autodeploy",
    "info",
    "INFO",
    "debug",
    "nan",
    "0x10",
    "1_000",
    " 4",
]
YAML_VALUES = [
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "1",
    "0",
    "8",
    "-3",
    "0.5",
    "1e-3",
    "'8'",
    "abc",
    "null",
    "~",
    "[1, 2]",
    "{a: 1}",
    "''",
    "fp8",
    "FP8",
    "auto",
    "TRTLLM",
    "trtllm",
    "CUTLASS",
    "MTP",
    "Eagle",
    "eagle",
    "Eagle3",
    "NGram",
    "AUTO",
    "2.0",
    ".inf",
]
EXTRA_KEYS = [
    "enable_build_cache",
    "build_config",
    "quant_config",
    "workspace",
    "fast_build",
    "calib_config",
    "batching_type",
    "enable_tqdm",
    "max_prompt_adapter_token",
    "print_iter_log",
    "torch_compile_config",
    "cuda_graph_config",
    "moe_config",
    "attn_backend",
    "sampler_type",
    "disagg_cluster",
    "router",
    "backend",
    "tokenizer_mode",
    "max_batch_size",
    "max_num_tokens",
    "kv_cache_config",
    "speculative_config",
    "enable_chunked_prefill",
    "stream_interval",
    "scheduler_config",
    "cache_transceiver_config",
    "nonexistent_key",
]


def corpus(root: str) -> tuple[list[list[str]], list[str]]:
    from servelint.pipeline.discover import discover
    from servelint.pipeline.options import Options
    from servelint.pipeline.read import read_job
    from servelint.sources.base import ReadContext

    specs = [s for job in discover([root], Options()) for s in read_job(job, ReadContext()).specs]
    argvs, files = [], []
    for s in specs:
        if s.engine != "trtllm" or s.entrypoint != "trtllm-serve":
            continue  # Dynamo's trtllm workers: their argv is Dynamo's, not trtllm-serve's
        argv = []
        for t in s.argv:
            argv.append(
                ("8" if not t.text.startswith("-") else t.text.split("=")[0] + "=8")
                if t.symbolic
                else t.text
            )
        argvs.append(argv)
        if s.option_file:
            files.append("\n".join(text for text, _, sym in s.option_file if not sym))
    return _unique(argvs), _unique(files)


def _unique(items: list) -> list:
    seen, out = set(), []
    for x in items:
        key = json.dumps(x)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def mutate_name(rng: random.Random, opt: str) -> str:
    body = opt[2:]
    choice = rng.randrange(6)
    if choice == 0:
        return "--" + body.replace("_", "-")
    if choice == 1 and len(body) > 3:
        i = rng.randrange(len(body))
        return "--" + body[:i] + body[i + 1 :]
    if choice == 2:
        return "--" + body + "s"
    if choice == 3:
        return "-" + body
    if choice == 4:
        return "--" + body.upper()
    return "--no_" + body


def argv_cases(rng: random.Random, argvs: list[list[str]], n: int) -> list[list[str]]:
    out = [list(a) for a in argvs]
    while len(out) < n:
        a = list(rng.choice(argvs))
        flags = [i for i, t in enumerate(a) if t.startswith("--")]
        kind = rng.randrange(7)
        if kind == 0 and flags:
            i = rng.choice(flags)
            name, eq, val = a[i].partition("=")
            a[i] = mutate_name(rng, name) + eq + val
        elif kind == 1 and flags:
            i = rng.choice(flags)
            name, eq, _ = a[i].partition("=")
            if eq:
                a[i] = name + "=" + rng.choice(VALUES)
            elif i + 1 < len(a) and not a[i + 1].startswith("-"):
                a[i + 1] = rng.choice(VALUES)
            else:
                a.insert(i + 1, rng.choice(VALUES))
        elif kind == 2:
            a.append(
                rng.choice(
                    [
                        "--backend",
                        "--log_level",
                        "--port",
                        "--max_batch_size",
                        "--kv_cache_free_gpu_memory_fraction",
                        "--tp_size",
                        "--trust_remote_code",
                        "--reasoning_parser",
                        "--tool_parser",
                        "--max_beam_width",
                        "--num_postprocess_workers",
                        "--host",
                    ]
                )
            )
            if rng.random() < 0.8:
                a.append(rng.choice(VALUES))
        elif kind == 3:
            a.insert(rng.randrange(len(a) + 1), rng.choice(["extra", "--", "-x", "--help=1"]))
        elif kind == 4 and flags:
            del a[rng.choice(flags)]
        elif kind == 5:
            a = a[1:] if a and not a[0].startswith("-") else a
        else:
            a.append(
                rng.choice(
                    [
                        "--trust_remote_code=true",
                        "--enable_chunked_prefill",
                        "--grpc",
                        "--backend=trt",
                        "--backend=TRT",
                    ]
                )
            )
        out.append(a)
    return out


_KEY = re.compile(r"^(\s*)([A-Za-z_][\w]*)(\s*:\s*)(.*)$")


def file_cases(rng: random.Random, files: list[str], n: int) -> list[str]:
    out = list(files)
    while len(out) < n:
        lines = rng.choice(files).splitlines()
        keyed = [i for i, line in enumerate(lines) if _KEY.match(line)]
        if not keyed:
            continue
        i = rng.choice(keyed)
        indent, key, sep, value = _KEY.match(lines[i]).groups()  # type: ignore[union-attr]
        kind = rng.randrange(6)
        if kind == 0:
            j = rng.randrange(len(key))
            key = rng.choice(
                [
                    key[:j] + key[j + 1 :],
                    key + "s",
                    key.replace("_", "-"),
                    key.upper(),
                    key[:j] + key[j] * 2 + key[j + 1 :],
                ]
            )
            lines[i] = indent + key + sep + value
        elif kind in (1, 2) and value.strip():
            lines[i] = indent + key + sep + rng.choice(YAML_VALUES)
        elif kind == 3:
            lines.insert(i, indent + rng.choice(EXTRA_KEYS) + ": " + rng.choice(YAML_VALUES))
        elif kind == 4:
            lines.append(rng.choice(EXTRA_KEYS) + ":")
            lines.append(
                "  "
                + rng.choice(
                    [
                        "dtype",
                        "backend",
                        "enable_padding",
                        "max_batch_size",
                        "decoding_type",
                        "bogus",
                        "free_gpu_memory_fraction",
                    ]
                )
                + ": "
                + rng.choice(YAML_VALUES)
            )
        else:
            lines.append("speculative_config:")
            lines.append("  decoding_type: " + rng.choice(YAML_VALUES))
            lines.append("  max_draft_len: " + rng.choice(YAML_VALUES))
        out.append("\n".join(lines))
    return out


NUMBERS = [
    "-1",
    "0",
    "0.0",
    "1",
    "1.0",
    "1.5",
    "2",
    "-0.5",
    "0.999",
    "1000000",
    "-1000",
    "'0.5'",
    "'2'",
    "'-1'",
    "1e-9",
    "0.0001",
]
_NUMBER_LINE = re.compile(r"^(\s*)([A-Za-z_]\w*)(\s*:\s*)(-?\d+(?:\.\d+)?)\s*$")


def number_cases(rng: random.Random, files: list[str], n: int) -> list[str]:
    """A numeric value of a corpus option file replaced by another number (bounds of the
    release's validators), blind to which fields have one."""
    out: list[str] = []
    while len(out) < n:
        lines = rng.choice(files).splitlines()
        nums = [i for i, line in enumerate(lines) if _NUMBER_LINE.match(line)]
        if not nums:
            continue
        i = rng.choice(nums)
        indent, key, sep, _ = _NUMBER_LINE.match(lines[i]).groups()  # type: ignore[union-attr]
        lines[i] = indent + key + sep + rng.choice(NUMBERS)
        out.append("\n".join(lines))
    return out


def main() -> None:
    root, dest = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 16
    rng = random.Random(seed)
    argvs, files = corpus(root)
    cases = []
    for k, argv in enumerate(argv_cases(rng, argvs, 1200)):
        cases.append({"id": f"argv-{k}", "argv": argv, "option_file": None})
    base = ["Qwen/Qwen3-8B"]
    for k, text in enumerate(file_cases(rng, files, 1200)):
        backend = ["--backend", "tensorrt"] if k % 7 == 6 else []
        cases.append({"id": f"file-{k}", "argv": base + backend, "option_file": text})
    for k, text in enumerate(number_cases(rng, files, 400)):  # after the others: they stay
        cases.append({"id": f"num-{k}", "argv": base, "option_file": text})
    with open(dest, "w") as fh:
        json.dump(cases, fh)
    print(f"{len(cases)} cases ({len(argvs)} corpus argvs, {len(files)} corpus option files)")


if __name__ == "__main__":
    main()
