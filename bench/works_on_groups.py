"""How far grouping releases could cut ``--works-on``: for each vLLM launch of a JSON report,
the number of distinct keys its releases have when a key holds only facts the launch reads.

    servelint check --works-on --format json -o /tmp/r.json ../shared/corpus/vllm-recipes
    python bench/works_on_groups.py /tmp/r.json [--sample 400]

Provenance fields are dropped (no verdict reads them). ``flags`` = the parser actions of the
flags the launch names and the parser's rules: a lower bound of any exact key (the parse reads
them). ``+ checks`` adds, taken whole, what every vLLM launch without ``--config`` reaches in
SL114 (``validators.failures``): the EngineArgs checks and the serve namespace checks; a key
that kept of each check only what the launch's values make it read could be finer. ``+ cut
checks`` is such an estimate, not an exact key: of those checks, only the ones reading a dest
the launch's flags name (``reads``), with the EngineArgs table's other entries (assigned,
changes, converted) and the defaults of the dests they read; a check reading only defaults
is assumed to pass on every release (to be proved before a key relies on it). No other
rule's facts (late values, configs, env, image packages) are in any of the three keys.
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


def _cut(prof, dests: set[str]) -> str:
    """SL114's checks that read a dest of ``dests``, and what they read of the release."""
    ea = (prof.data.get("conditions") or {}).get("EngineArgs") or {}
    serve = (prof.data.get("serve_checks") or {}).get("checks") or []
    kept = [c for key in ("checks", "model_checks") for c in ea.get(key, [])
            if dests.intersection(c.get("reads") or ())]
    kept += [c for c in serve if dests.intersection(c.get("reads") or ())]
    read = {f for c in kept for f in c.get("reads") or ()}
    defaults = {d: v for d, v in (ea.get("defaults") or {}).items() if d in read}
    rest = {k: v for k, v in ea.items() if k in ("assigned", "changes", "converted")}
    return _text([kept, defaults, rest])


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
    flags_n, checks_n, cut_n = [], [], []
    passing: list[tuple[int, int, int]] = []  # releases first..last, groups: flags, + cut
    for launch in launches:
        names = [t.split("=", 1)[0].split(".", 1)[0] for t in launch["argv"] if t.startswith("--")]
        keys = [(tuple(_text(a.raw) if (a := p.option_index.get(n)) else "" for n in names),
                 rules[i]) for i, p in enumerate(profs)]
        flags_n.append(len(set(keys)))
        checks_n.append(len({(k, checks[i]) for i, k in enumerate(keys)}))
        dests = {a.dest for n in names for p in profs if (a := p.option_index.get(n))}
        cuts = [(k, _cut(profs[i], dests)) for i, k in enumerate(keys)]
        cut_n.append(len(set(cuts)))
        works = launch.get("works_on") or {}
        if works.get("first") and works.get("last"):
            span = range(releases.index(works["first"]), releases.index(works["last"]) + 1)
            passing.append((len(span), len({keys[i] for i in span}), len({cuts[i] for i in span})))
    print(f"{len(launches)} vLLM launches, {len(releases)} releases")
    print(f"flags: {statistics.mean(flags_n):.1f} groups (max {max(flags_n)})")
    print(f"+ checks: {statistics.mean(checks_n):.1f} groups (max {max(checks_n)})")
    print(f"+ cut checks: {statistics.mean(cut_n):.1f} groups (max {max(cut_n)})")
    if passing:
        print(f"first..last: {statistics.mean(n for n, _, _ in passing):.1f} releases, "
              f"{statistics.mean(g for _, g, _ in passing):.1f} groups by flags, "
              f"{statistics.mean(g for _, _, g in passing):.1f} by + cut checks")


if __name__ == "__main__":
    main()
