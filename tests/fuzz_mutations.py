"""Mutation fuzzing of the whole pipeline: seeds (launchers, guides, recipes) mutated with
hostile pieces (escape sequences, newlines that start ``::error`` lines, value doubling,
fences, block quotes, NUL and non-UTF-8 bytes, deep nesting), each checked through
``check_paths`` and rendered in every format.

Properties per input: no exception, every format renders, JSON/SARIF parse and are valid
UTF-8, text and GitHub output hold no control character and no line a value started.
``run(count, seed)`` is used by tests/test_fuzz_mutations.py (a bounded run in CI) and by
``bench/robustness.py --fuzz N`` (longer runs).
"""

from __future__ import annotations

import io
import json
import random
import re
import tempfile
from pathlib import Path

SEEDS = {
    ".sh": [
        b"#!/bin/bash\nTP=8\nvllm serve org/m --tensor-parallel-size $TP --max-model-len 4096\n",
        b'#!/bin/bash\nA=(--max-num-seqs 4)\nX=ab\nvllm serve org/m "${A[@]}" --x "$X"\n',
        b"#!/bin/bash\npip install 'fastokens>=0.1.1,<0.2.0'\npython -m sglang.launch_server "
        b"--model-path org/m --tp 2\n",
    ],
    ".md": [
        b"# Guide\n\n```bash\npip install vllm==0.21.0\nvllm serve org/m --enforce-eager\n```\n",
        b"> ```bash\n> docker run vllm/vllm-openai:v0.21.0 --model org/m\n> ```\n",
    ],
    ".yaml": [
        b'model:\n  model_id: org/m\n  base_args:\n    - "--enforce-eager"\nvariants:\n'
        b"  default:\n    precision: bf16\ncompatible_strategies:\n  - single_node_tp\n",
    ],
}
HOSTILE = [
    b"\x1b]0;pwned\x07",
    b"\x1b[2J",
    b"\n::error file=pwned::x\n",
    b"$'\\n::error::pwned'",
    b"X=$X$X\n" * 30,
    b"X=${X//a/aaaa}\n" * 20,
    b'A=("${A[@]}" "${A[@]}")\n' * 20,
    b"\x00",
    b"\xff\xfe",
    b"\xe9",
    b"```\n",
    b"~~~~\n",
    b"> > > ```bash\n",
    b"$(" * 50,
    b"[" * 80,
    b"&a [*a]",
    b"\r",
    "\u202e".encode(),
    b"--no-such-flag ",
    b"\t",
    b"\\\n",
    b"'",
    b'"',
    b"${!X}",
    b"<<EOF\n",
    b"- *x\n",
]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def mutate(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(data))
        choice = rng.random()
        if choice < 0.6:
            data = data[:at] + rng.choice(HOSTILE) + data[at:]
        elif choice < 0.8 and data:
            end = min(len(data), at + rng.randint(1, 16))
            data = data[:at] + data[end:]
        else:
            line = data.split(b"\n")
            i = rng.randrange(len(line))
            data = b"\n".join(line[:i] + [line[i]] * rng.randint(2, 40) + line[i:])
    return data


def problems_with(outputs: dict[str, str]) -> list[str]:
    """What is wrong with one input's rendered outputs (empty: all properties hold)."""
    out = []
    for fmt, text in outputs.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            out.append(f"{fmt}: not valid UTF-8")
        if fmt in ("json", "sarif"):
            try:
                json.loads(text)
            except ValueError:
                out.append(f"{fmt}: not JSON")
            continue
        bad = CONTROL.search(text)
        if bad:
            out.append(f"{fmt}: control character {bad.group()!r}")
        for line in text.splitlines():
            if line.startswith("::") and (fmt == "text" or "pwned" in line.split("::")[1]):
                out.append(f"{fmt}: injected line {line[:40]!r}")
    return out


def check_one(path: Path) -> list[str]:
    from servelint import reporters
    from servelint.check import Options, check_paths

    try:
        report = check_paths([str(path)], Options(use_cache=False, jobs=1))
        outputs = {}
        for fmt in reporters.FORMATS:
            stream = io.StringIO()
            extra = {"launches": [lr.summary for lr in report.launches]} if fmt == "json" else None
            reporters.render(
                report.findings,
                fmt,
                stream=stream,
                files_checked=report.files,
                extra=extra,
                color=False,
            )
            outputs[fmt] = stream.getvalue()
    except Exception as exc:  # the property under test: nothing escapes
        return [f"{type(exc).__name__}: {exc}"[:200]]
    return problems_with(outputs)


def run(count: int, seed: int = 1) -> list[str]:
    """``count`` mutated inputs; the failures, each naming its input."""
    rng = random.Random(seed)
    failures = []
    with tempfile.TemporaryDirectory(prefix="servelint-fuzz-") as tmp:
        for n in range(count):
            suffix = rng.choice(sorted(SEEDS))
            data = mutate(rng.choice(SEEDS[suffix]), rng)
            folder = Path(tmp) / ("models/org" if suffix == ".yaml" else "")
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"f{n}{suffix}"
            path.write_bytes(data)
            for problem in check_one(path):
                failures.append(f"input {n} (seed {seed}, {suffix}, {data[:60]!r}): {problem}")
            path.unlink()
    return failures
