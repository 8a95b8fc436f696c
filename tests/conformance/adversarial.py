"""Static verdicts vs the real parser on the adversarial corpus (tools/oracle/make_adversarial.py).

Used by test_adversarial.py and tools/oracle/write_conformance_doc.py. Each judged case
falls in one class:

  agree-accept    the oracle accepted every stage it ran, servelint accepts
  agree-parse     both reject at parse time (oracle stage main/parse)
  caught-late     the oracle rejected after parsing and servelint rejects (any stage)
  false-error     the oracle accepted every stage it ran (deep: through the renderer on a
                  fake model; shallow: through engine_args) and servelint rejects at a
                  stage the oracle ran: parse always, a late stage only on a deep case
  model-dependent the oracle accepted on its fake models, servelint rejects a value that the
                  engine reads only under a model condition the fake models do not meet
                  (the profile's late_values[...].only_if, e.g. multimodal models)
  unverified      the oracle accepted every stage it ran and servelint rejects at a stage
                  the oracle does not run (model loading, or past engine_args on a
                  shallow case)
  miss-parse      the oracle rejected at parse time, servelint accepts
  parse-vs-late   the oracle rejected after parsing, servelint already at parse time
  miss-late       the oracle rejected after parsing, servelint accepts

Oracle timeouts/errors and rejections caused by the sandbox (the fake model's tokenizer,
a package missing from the oracle venv, a check only the oracle's CPU platform makes) are not
judged (tools/oracle/compact_verdicts.py tags them).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from servelint.engines.vllm.verdict import StaticVerdict, static_verdict
from servelint.profiles import Profile

HERE = Path(__file__).resolve().parent / "adversarial"
VERSIONS = ("0.11.0", "0.21.0", "0.27.1", "0.33.0")
PARSE_STAGES = {"main", "parse"}
SHALLOW_STAGES = {"parse", "validate", "serve_cmd", "api_args", "engine_args"}
DEEP_STAGES = SHALLOW_STAGES | {"engine_config", "renderer"}
UNJUDGED_STAGES = {"oracle-timeout", "oracle-error"}
UNJUDGED_TAGS = {"missing-package", "artefact:fake-model", "artefact:platform"}
KNOWN_FILE = HERE / "known.json"


def _read_gz(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@cache
def cases(version: str) -> tuple[dict, ...]:
    return tuple(_read_gz(HERE / f"{version}.cases.jsonl.gz"))


@cache
def verdicts(version: str) -> dict[str, dict]:
    return {r["id"]: r for r in _read_gz(HERE / f"{version}.verdicts.jsonl.gz")}


AGREE = frozenset({"agree-accept", "agree-parse", "caught-late", "parse-vs-late"})


def known() -> dict[tuple[str, str], str]:
    """(version, case id) -> reason for a listed disagreement (triage_adversarial.py)."""
    if not KNOWN_FILE.is_file():
        return {}
    data = json.loads(KNOWN_FILE.read_text())
    reasons = data["reasons"]
    return {
        (v, case_id): reasons[i] for v, ids in data["cases"].items() for case_id, i in ids.items()
    }


@dataclass(frozen=True, slots=True)
class Judged:
    version: str
    case: dict
    oracle: dict
    static: StaticVerdict
    verdict: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.version, self.case["id"])


def classify(rec: dict, sv: StaticVerdict) -> str | None:
    if rec["stage"] in UNJUDGED_STAGES or rec["tag"] in UNJUDGED_TAGS:
        return None
    static_parse = not sv.ok and sv.stage == "parse"
    if rec["ok"]:
        if sv.ok:
            return "agree-accept"
        if sv.only_if:
            return "model-dependent"
        ran = DEEP_STAGES if rec.get("deep") else SHALLOW_STAGES
        return "false-error" if static_parse or sv.stage in ran else "unverified"
    if rec["stage"] in PARSE_STAGES:
        return "agree-parse" if static_parse else "miss-parse"
    if static_parse:
        return "parse-vs-late"
    return "caught-late" if not sv.ok else "miss-late"


def judge(profile: Profile, version: str) -> list[Judged]:
    oracle = verdicts(version)
    out = []
    for case in cases(version):
        rec = oracle.get(case["id"])
        if rec is None:
            continue
        sv = static_verdict(profile, list(case["argv"]), case.get("env"))
        verdict = classify(rec, sv)
        if verdict is not None:
            out.append(Judged(version, case, rec, sv, verdict))
    return out


def tally(judged: list[Judged]) -> Counter:
    return Counter(j.verdict for j in judged)


def late_caught(counts: Counter) -> tuple[int, int]:
    """(caught, total) of the oracle's post-parse rejections."""
    caught = counts["caught-late"] + counts["parse-vs-late"]
    return caught, caught + counts["miss-late"]
