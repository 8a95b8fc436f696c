"""Agreement of ``servelint.engines.sglang.argv.parse`` with the real SGLang parse step on
the adversarial cases (tools/sglang_oracle/gen_cases.py; verdicts in adversarial-*.json.gz).

Used by test_sglang_adversarial.py and tools/sglang_oracle/write_conformance_doc.py.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

from servelint import profiles
from servelint.engines.sglang import argv as sglang_argv

HERE = Path(__file__).parent
KNOWN_FILE = HERE / "adversarial_known.json"


@dataclass
class Outcome:
    release: str
    cases: int = 0
    agree: int = 0
    false_errors: list[dict] = field(default_factory=list)  # real accepts, we reject
    misses: list[dict] = field(default_factory=list)  # real rejects, we accept
    oracle_rejected: int = 0


def files() -> list[Path]:
    return sorted(HERE.glob("adversarial-*.json.gz"))


def load(path: Path) -> tuple[str, list[list]]:
    with gzip.open(path, "rt", encoding="utf-8", errors="surrogatepass") as fh:
        data = json.load(fh)
    return data["meta"]["release"], data["cases"]


def known() -> dict[str, dict[str, str]]:
    """release -> case id -> reason for each listed disagreement."""
    return json.loads(KNOWN_FILE.read_text()) if KNOWN_FILE.exists() else {}


def judge(path: Path) -> Outcome:
    release, rows = load(path)
    profile = profiles.load("sglang", release)
    assert profile is not None, f"no committed profile for sglang {release}"
    out = Outcome(release)
    for cid, argv, verdict, exit_code, kind, message in rows:
        if verdict == "error":
            continue
        out.cases += 1
        real_ok = verdict == "accepted"
        out.oracle_rejected += not real_ok
        res = sglang_argv.parse(profile, argv)
        case = {
            "id": cid,
            "argv": argv,
            "real": f"{kind} (exit {exit_code}): {message}",
            "ours": res.error,
        }
        if res.ok == real_ok:
            out.agree += 1
        elif real_ok:
            out.false_errors.append(case)
        else:
            out.misses.append(case)
    return out
