"""Agreement of servelint's static trtllm verdicts with the real code's (check_cases.py output).

    python tools/trtllm_oracle/compare.py CASES.json VERDICTS.json [--show N] [--write OUT]

Static verdicts: the shared lint loop over ``servelint.engines.trtllm.argv`` for the argv
(rejected when it reports a problem) and ``option_file.check`` for the file (rejected when it
reports an error). ``--write`` stores the compact verdict file the CI test reads.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from servelint import profiles
from servelint.engines.lint_parse import lint_parse
from servelint.engines.trtllm import option_file
from servelint.engines.trtllm.argv import parse
from servelint.model import Span

# (the real code accepts, servelint accepts) -> the conformance table's cell
CELLS = {
    (True, True): "both accept",
    (False, False): "both reject",
    (True, False): "FALSE ERROR",
    (False, True): "miss",
}


def static_argv(prof, argv: list[str]) -> bool:
    return not lint_parse(prof, tuple(argv), ()).problems


def static_file(prof, argv: list[str], text: str) -> bool:
    result = parse(prof, argv)
    backend = "pytorch"
    for opt in result.options:
        if opt.action is not None and opt.action.dest == "backend":
            backend = (opt.action.raw.get("aliases") or {}).get(opt.value, opt.value)
    lines = tuple((t, Span("f.yml", i + 1, 1), False) for i, t in enumerate(text.splitlines()))
    problems, _ = option_file.check(prof, lines, backend, Span("f.yml", 1, 1))
    return not any(p.severity == "error" for p in problems)


def compare(cases: list[dict], oracle: dict) -> tuple[Counter, list[dict]]:
    prof = profiles.load("trtllm", oracle["release"])
    assert prof is not None, oracle["release"]
    by_id = {c["id"]: c for c in cases}
    table: Counter = Counter()
    odd = []
    for r in oracle["results"]:
        case = by_id[r["id"]]
        if case["option_file"] is None or not r["argv_ok"]:
            kind, real, static = "argv", r["argv_ok"], static_argv(prof, case["argv"])
        else:
            kind, real = "file", r["file_ok"]
            static = static_file(prof, case["argv"], case["option_file"])
        cell = CELLS[(real, static)]
        table[(kind, cell)] += 1
        if real != static:
            odd.append({"id": r["id"], "kind": kind, "cell": cell, "case": case, "oracle": r})
    return table, odd


def main() -> None:
    cases = json.load(open(sys.argv[1]))
    oracle = json.load(open(sys.argv[2]))
    table, odd = compare(cases, oracle)
    print(f"trtllm {oracle['release']}: {len(oracle['results'])} cases")
    for key, n in sorted(table.items()):
        print(f"  {key[0]:5} {key[1]:12} {n}")
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 10
    for d in odd[:show]:
        print(json.dumps(d)[:600])
    if "--write" in sys.argv:
        out = sys.argv[sys.argv.index("--write") + 1]
        compact = {
            "release": oracle["release"],
            "stub_types": oracle["stub_types"],
            "cases": [[c["id"], c["argv"], c["option_file"]] for c in cases],
            "verdicts": {r["id"]: [r["argv_ok"], r.get("file_ok")] for r in oracle["results"]},
        }
        with open(out, "w") as fh:
            json.dump(compact, fh, separators=(",", ":"))


if __name__ == "__main__":
    main()
