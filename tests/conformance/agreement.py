"""Compare servelint's static verdicts with the committed verdicts of the real parser.

Used by test_agreement.py and tools/oracle/write_conformance_doc.py. Two checks per case:
  parse  rejected at parse time (oracle stage main/parse) vs static stage "parse";
  late   for cases carrying a late-checked value (case["late"]) that both sides parse:
         the oracle rejected that value later (tag late:<target>) vs the static verdict
         rejecting it after parsing.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from servelint.engines.vllm.verdict import StaticVerdict, static_verdict
from servelint.profiles import Profile

HERE = Path(__file__).resolve().parent
VERSIONS = ("0.11.0", "0.21.0", "0.27.1", "0.33.0")
CHECKS = ("parse", "late")
PARSE_STAGES = {"main", "parse"}
UNJUDGED = {"oracle-timeout", "oracle-error"}
KNOWN_FILE = HERE / "known_disagreements.json"


@cache
def cases() -> tuple[dict, ...]:
    lines = (HERE / "cases.jsonl").read_text().splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


@cache
def verdicts(version: str) -> dict[str, dict]:
    path = HERE / "verdicts" / f"{version}.jsonl.gz"
    if not path.is_file():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {rec["id"]: rec for rec in map(json.loads, fh) if rec}


def known() -> dict[tuple[str, str, str], str]:
    """(version, check, case id) -> reason, from known_disagreements.json."""
    if not KNOWN_FILE.is_file():
        return {}
    entries = json.loads(KNOWN_FILE.read_text())
    return {(e["version"], e["check"], e["id"]): e["reason"] for e in entries}


@dataclass(frozen=True, slots=True)
class Disagreement:
    version: str
    check: str
    case_id: str
    argv: tuple[str, ...]
    oracle: str
    static: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.version, self.check, self.case_id)


@dataclass(slots=True)
class Tally:
    version: str
    check: str
    cases: int = 0
    agree: int = 0
    disagree: int = 0


def _describe_oracle(rec: dict) -> str:
    if rec["ok"]:
        return "accepted"
    return f"{rec['stage']} [{rec['tag']}]: {rec['msg']}"


def _describe_static(sv: StaticVerdict) -> str:
    if sv.ok:
        return "accepted"
    return f"{sv.stage}: {sv.message[:300]}"


def compare(profile: Profile, version: str) -> tuple[dict[str, Tally], list[Disagreement]]:
    """Tallies per check and every disagreement, for one release."""
    tallies = {check: Tally(version, check) for check in CHECKS}
    found: list[Disagreement] = []
    oracle = verdicts(version)
    for case in cases():
        rec = oracle.get(case["id"])
        if rec is None or rec["stage"] in UNJUDGED:
            continue
        sv = static_verdict(profile, list(case["argv"]), case.get("env"))
        oracle_parse_reject = (not rec["ok"]) and rec["stage"] in PARSE_STAGES
        static_parse_reject = (not sv.ok) and sv.stage == "parse"
        outcomes = [("parse", oracle_parse_reject, static_parse_reject)]
        if case.get("late") and not oracle_parse_reject and not static_parse_reject:
            oracle_late = rec["tag"].startswith("late:")
            static_late = not sv.ok
            outcomes.append(("late", oracle_late, static_late))
        for check, o, s in outcomes:
            tally = tallies[check]
            tally.cases += 1
            if o == s:
                tally.agree += 1
                continue
            tally.disagree += 1
            found.append(Disagreement(version, check, case["id"], tuple(case["argv"]),
                                      _describe_oracle(rec), _describe_static(sv)))
    return tallies, found


def iter_releases() -> Iterator[tuple[str, Profile | None]]:
    from servelint import profiles

    for version in VERSIONS:
        yield version, profiles.load("vllm", version)
