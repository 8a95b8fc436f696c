"""How far grouping releases could cut ``--works-on``: for each vLLM launch of a JSON report,
the number of distinct keys its releases have when a key holds only facts the launch reads.

    servelint check --works-on --format json -o /tmp/r.json ../shared/corpus/vllm-recipes
    python bench/works_on_groups.py /tmp/r.json [--sample 400]

Provenance fields are dropped (no verdict reads them). ``flags`` = the parser actions of the
flags the launch names and the parser's rules: a lower bound of any exact key (the parse reads
them). ``+ checks`` adds, taken whole, what every vLLM launch without ``--config`` reaches in
SL114 (``validators.failures``): the EngineArgs checks and the serve namespace checks; a key
that kept of each check only what the launch's values make it read could be finer.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

from servelint import profiles

PROVENANCE = {"source", "field_source", "help", "deprecated_message", "message", "and_parts",
              "help_mentions_deprecated"}


def _strip(value: object) -> object:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in PROVENANCE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _text(value: object) -> str:
    return json.dumps(_strip(value), sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--sample", type=int, default=400)
    args = ap.parse_args()
    with open(args.report, encoding="utf-8") as fh:
        launches = [x for x in json.load(fh)["launches"] if x["engine"] == "vllm"]
    random.seed(1)
    launches = random.sample(launches, min(args.sample, len(launches)))
    releases = profiles.available("vllm")
    profs = [profiles.load("vllm", r) for r in releases]
    checks = [_text([(p.data.get("conditions") or {}).get("EngineArgs"),
                     p.data.get("serve_checks")]) for p in profs]
    rules = [_text(p.rules) for p in profs]
    flags_n, checks_n = [], []
    for launch in launches:
        names = [t.split("=", 1)[0].split(".", 1)[0] for t in launch["argv"] if t.startswith("--")]
        keys = [(tuple(_text(a.raw) if (a := p.option_index.get(n)) else "" for n in names),
                 rules[i]) for i, p in enumerate(profs)]
        flags_n.append(len(set(keys)))
        checks_n.append(len({(k, checks[i]) for i, k in enumerate(keys)}))
    print(f"{len(launches)} vLLM launches, {len(releases)} releases")
    print(f"flags: {statistics.mean(flags_n):.1f} groups (max {max(flags_n)})")
    print(f"+ checks: {statistics.mean(checks_n):.1f} groups (max {max(checks_n)})")


if __name__ == "__main__":
    main()
