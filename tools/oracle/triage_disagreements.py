#!/usr/bin/env python3
"""List every current disagreement in tests/conformance/known_disagreements.json, with a reason.

    python3 tools/oracle/triage_disagreements.py [--check]

A reason already written in the file is kept. A new disagreement gets the reason of the
first RULES entry whose pattern matches "oracle-description || static-description || argv";
one that matches no rule is reported and NOT listed (so the agreement test keeps failing
until someone looks at it). Entries that no longer occur are dropped. --check: only report.
Every listed disagreement is a servelint bug or a documented limit of the static model.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "conformance"))

from agreement import KNOWN_FILE, compare, iter_releases, known  # noqa: E402

# (regex over "oracle || static || argv", reason)
RULES: list[tuple[str, str]] = [
    (r"Config file must be of a yaml/yml type",
     "parse: FlexibleArgumentParser checks the --config file extension inside parse_args; "
     "the static parser records --config without checking it"),
    (r"Invalid JSON format for --lora-modules",
     "parse: --lora-modules has a custom action (name=path or JSON) that the static parser "
     "does not model"),
    (r"Unsupported speculative method: 'mtp'",
     "late: fake-model artefact: method 'mtp' is resolved from the target model's type "
     "(the fake llama has no MTP variant); valid for the profile, model-dependent"),
    (r"^accepted \|\| api_args: tool_call_parser=.* \|\| m --tool-call-parser \S+$",
     "late: vLLM looks the tool parser up only with --enable-auto-tool-choice (otherwise the "
     "flag is ignored); the profile's tool_call_parser set carries no `requires` condition "
     "(static_verdict honours late_values[...]['requires'] when the builder emits it)"),
    (r"^parse \[\w+\]: .*for PoolerConfig \| \w+ \| Unexpected keyword argument",
     "parse: PoolerConfig has a mode='before' model validator (reject_removed_parameters), "
     "so the profile marks its keys as not statically checkable (keys_checked=false): a miss "
     "by design, not a false error"),
    (r"Speculative decoding with draft model is not supported yet.* \|\| accepted \|\| "
     r"m --speculative-config \{\"method\": \"mtp\"",
     "late: model-dependent: 0.11 resolves method 'mtp' to the target model as its own "
     "draft, and a non-MTP target (the fake llama) takes the unsupported draft-model path; "
     "the error text lists 'mtp' among the alternatives"),
    (r"num_speculative_tokens was provided but without speculative model.* \|\| "
     r"engine_config: ValueError: num_speculative_tokens was provided but without",
     "late: the engine refuses the launch for another reason than the method under test "
     "(num_speculative_tokens without a draft model, SpeculativeConfig.__post_init__), and "
     "servelint reports that same refusal (SL114); the method value itself is valid"),
    (r"Draft model speculative decoding is not supported yet.* \|\| engine_config: "
     r"ValueError: num_speculative_tokens was provided but without",
     "late: the engine refuses method 'draft_model' in EngineArgs before it builds "
     "SpeculativeConfig; servelint reports the SpeculativeConfig refusal the same launch "
     "meets there (num_speculative_tokens without a draft model): both refuse it"),
    (r"method='custom_class' requires 'model'",
     "late: cross-field rule of SpeculativeConfig: method 'custom_class' also needs 'model' "
     "to name the proposer class; the case gives none (the method itself is valid)"),
    (r"^parse \[argparse\]: .*argument --mm-processor-device: invalid choice",
     "parse: the choices are platform-dependent (auto, cpu + current_platform.device_type, "
     "vllm/engine/arg_utils.py), so the profile marks them open to avoid a false error for "
     "'cuda' on GPU hosts: a miss by design"),
    (r"quantization method %s is deprecated",
     "late: deprecated quantization methods are refused at engine_config unless "
     "--allow-deprecated-quantization is given; the profile's quantization set does not "
     "mark them as deprecated"),
    (r"^parse \[\w+\]: .*Unexpected keyword argument.*\|\| accepted \|\| m --\S+\._",
     "parse: pydantic refuses private (underscore) fields as init keywords; the profile "
     "lists them as ordinary config fields"),
    (r"^parse \[\w+\]: .*valid boolean",
     "parse: pydantic bool parsing of a dotted/JSON value is not checked statically"),
    (r"^parse \[\w+\]: .*\[type=dict_type",
     "parse: a dict-typed config field given a scalar; the static config check does not "
     "check container types"),
    (r"^parse \[\w+\]: .*\| sparse_indexer_topk_backend \| Input should be .*literal_error",
     "parse: the field has a mode='before' normalising validator "
     "(_normalize_sparse_indexer_topk_backend), so the profile leaves its choices unchecked "
     "(value_check=None); the value is still outside the Literal"),
    (r"^parse \[\w+\]: .*Input should be \d.*literal_error.*input_type=str",
     "parse: a Literal of ints rejects the JSON string; the static check compares text"),
    (r"^parse \[parse-exception\]: KeyError: '",
     "parse: an enum lookup by name raises KeyError inside parse_args (traceback); the "
     "static config check does not know that field's enum"),
    (r"^parse \[\w+\]: .*Value error, ",
     "parse: a pydantic field/model validator with custom logic rejects the value (not "
     "modelled by the static config check)"),
]


def reason_for(text: str) -> str | None:
    for pattern, reason in RULES:
        if re.search(pattern, text):
            return reason
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    old = known()
    entries: list[dict] = []
    untriaged = []
    for version, profile in iter_releases():
        if profile is None:
            # keep what was listed for a release that cannot be scored right now
            entries += [{"version": v, "check": c, "id": i, "reason": r}
                        for (v, c, i), r in old.items() if v == version]
            continue
        _, found = compare(profile, version)
        for d in found:
            text = f"{d.oracle} || {d.static} || {' '.join(d.argv)}"
            reason = old.get(d.key) or reason_for(text)
            if reason is None:
                untriaged.append(d)
                continue
            entries.append({"version": version, "check": d.check, "id": d.case_id,
                            "argv": " ".join(d.argv), "oracle": d.oracle, "static": d.static,
                            "reason": reason})
    for d in untriaged:
        print(f"UNTRIAGED {d.version} {d.check} {d.case_id}: {' '.join(d.argv)[:120]}\n"
              f"    oracle: {d.oracle}\n    static: {d.static}")
    if not a.check:
        entries.sort(key=lambda e: (e["version"], e["check"], e["id"]))
        KNOWN_FILE.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
        print(f"{len(entries)} known disagreements -> {KNOWN_FILE}; {len(untriaged)} untriaged")
    return 1 if untriaged else 0


if __name__ == "__main__":
    raise SystemExit(main())
