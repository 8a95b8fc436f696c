"""sglang_argv.parse against the verdicts of SGLang's real parser (tools/sglang_oracle).

verdicts-<version>.json.gz: {"meta": ..., "results": [{"id", "argv", "verdict",
"exit_code", "message": [last stderr line]}]} recorded by check_argv.py in an oracle venv.
Known disagreements are listed in KNOWN with the reason; everything else must agree on the
verdict and, for argparse rejections, on the error text.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from servelint import profiles
from servelint.engines.sglang import argv as sglang_argv

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("verdicts-*.json.gz"))
# (release, case id) -> why only the error *text* differs (the verdict must still agree)
KNOWN_MESSAGE: dict[tuple[str, str], str] = {
    (
        "0.5.23",
        "mut:bad-sampling",
    ): "--sampling-backend lists 'token_oracle' only when SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE "
    "is set while the parser is built (server_args.py add_cli_args); the profile keeps "
    "the superset so a valid value is never called invalid",
}


# case id -> why the verdict differs by design (every release)
KNOWN_VERDICT: dict[str, str] = {
    "mut:config-missing": "the config file is absent where servelint runs, which says nothing "
    "of the launch machine: its options are unknown, not an error (config_merge.ConfigAbsent)",
}


def _load(path: Path) -> tuple[str, list[dict]]:
    version = path.name[len("verdicts-") : -len(".json.gz")]
    with gzip.open(path, "rt") as fh:
        return version, json.load(fh)["results"]


def _message(case: dict) -> str:
    line = (case.get("message") or [""])[-1]
    return _normal(re.sub(r"^[^:]*: error: ", "", line))


def _normal(message: str | None) -> str | None:
    """Choices given as a set are listed in hash order by argparse: compare them sorted."""
    if message is None:
        return None
    m = re.search(r"\(choose from (.*)\)$", message)
    if not m:
        return message
    items = sorted(x.strip() for x in m.group(1).split(","))
    return message[: m.start()] + "(choose from " + ", ".join(items) + ")"


def disagreements(version: str, cases: list[dict]) -> list[str]:
    profile = profiles.load("sglang", version)
    assert profile is not None, f"no committed profile for sglang {version}"
    out = []
    for case in cases:
        if case["verdict"] == "error":
            continue
        res = sglang_argv.parse(profile, case["argv"])
        real_ok = case["verdict"] == "accepted"
        if case["id"] in KNOWN_VERDICT:
            continue
        if res.ok != real_ok:
            out.append(
                f"{case['id']}: real={case['verdict']} {_message(case)!r} ours={res.error!r}"
            )
        elif (
            not real_ok
            and case.get("kind") == "argparse"
            and case.get("exit_code") == 2
            and _normal(res.error) != _message(case)
            and (version, case["id"]) not in KNOWN_MESSAGE
        ):
            out.append(f"{case['id']}: message real={_message(case)!r} ours={res.error!r}")
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_agreement(path, monkeypatch):
    monkeypatch.chdir(HERE.parents[1])  # config cases name repo-relative YAML files
    version, cases = _load(path)
    assert len(cases) >= 500
    bad = disagreements(version, cases)
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:40])
