"""Agreement of servelint's ``python3 -m dynamo.sglang|vllm`` verdict (the pipeline's path:
the Dynamo worker profile splits the argv, the engine profile judges the rest) with the real
``dynamo.<worker>.args.parse_args`` of the release (tools/dynamo_oracle; verdicts in
worker-<worker>-<dynamo>.json.gz).

Used by test_dynamo_worker_conformance.py and tools/dynamo_oracle/write_conformance_doc.py.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

from servelint.model import LaunchSpec, Severity, Span, Token
from servelint.pipeline.judge import check_spec
from servelint.pipeline.options import Options

HERE = Path(__file__).parent
KNOWN_FILE = HERE / "worker_known.json"


@dataclass
class Outcome:
    worker: str
    dynamo: str
    engine: str
    cases: int = 0
    agree: int = 0
    false_errors: list[dict] = field(default_factory=list)  # real accepts, we reject
    misses: list[dict] = field(default_factory=list)  # real rejects, we accept
    oracle_rejected: int = 0


def files() -> list[Path]:
    return sorted(HERE.glob("worker-*-*.json.gz"))


def load(path: Path) -> tuple[dict, list[list]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return data["meta"], data["cases"]


def known() -> dict[str, dict[str, str]]:
    """'dynamo.<worker> <release>' -> case id -> reason for each listed disagreement."""
    return json.loads(KNOWN_FILE.read_text()) if KNOWN_FILE.exists() else {}


def errors(argv: list[str], dynamo: str, engine: str, worker: str = "sglang") -> list[str]:
    """servelint's error findings on one worker argv, as 'rule: message'."""
    anchor = Span("dynamo-worker-case", 1, 1)
    spec = LaunchSpec(
        engine=worker,
        entrypoint=f"python3 -m dynamo.{worker}",
        argv=[Token(t, anchor) for t in argv],
        path="dynamo-worker-case",
        anchor=anchor,
        release=engine,
        origin="srt-slurm",
        context={"dynamo_release": dynamo, "dynamo_release_how": "pinned by the case"},
    )
    found, _ = check_spec(spec, Options())
    return [f"{f.rule}: {f.message}" for f in found if f.severity == Severity.ERROR]


def judge(path: Path) -> Outcome:
    meta, rows = load(path)
    out = Outcome(meta["worker"].removeprefix("dynamo."), meta["dynamo"], meta["engine"])
    for cid, argv, verdict, exit_code, kind, message in rows:
        out.cases += 1
        real_ok = verdict == "accepted"
        out.oracle_rejected += not real_ok
        ours = errors(argv, out.dynamo, out.engine, out.worker)
        case = {
            "id": cid,
            "argv": argv,
            "real": f"{kind} (exit {exit_code}): {message}",
            "ours": ours,
        }
        if (not ours) == real_ok:
            out.agree += 1
        elif real_ok:
            out.false_errors.append(case)
        else:
            out.misses.append(case)
    return out


def key(o: Outcome) -> str:
    return f"dynamo.{o.worker} {o.dynamo}"
