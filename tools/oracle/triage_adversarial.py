#!/usr/bin/env python3
"""List every disagreement on the adversarial corpus in tests/conformance/adversarial/known.json.

    python3 tools/oracle/triage_adversarial.py [--check]

Each disagreement (miss-parse, miss-late, unverified, model-dependent; a false error is never
listed: the test fails on it) gets the reason of the first RULES entry whose pattern matches
"verdict || oracle stage [tag]: message || static || argv"; one that matches none is listed
as "unclassified" (and counted as such in docs/conformance.md). --check: only report.
Stored compactly: {"reasons": [...], "cases": {version: {case id: reason index}}}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "conformance"))

from adversarial import AGREE, KNOWN_FILE, VERSIONS, judge, verdicts  # noqa: E402

from servelint import profiles  # noqa: E402

# (regex over "verdict || stage [tag]: msg || static || argv", reason)
RULES: list[tuple[str, str]] = [
    (
        r"^unverified .*\|\| load[: ]",
        "beyond the oracle: load formats are looked up when the model is loaded "
        "(model_loader registry), a stage the oracle never reaches",
    ),
    (
        r"^model-dependent ",
        "model-dependent: the option belongs to a config the engine builds only under a model "
        "condition (e.g. MultiModalConfig for multimodal models); the fake models are text-only "
        "and never read it; the finding names the condition",
    ),
    (
        r"Invalid (JSON format|fields) for --lora-modules",
        "parse: --lora-modules has a custom argparse action (name=path or JSON, "
        "LoRAParserAction) that the static parser does not model",
    ),
    (
        r"invalid choice: .*\(choose from 'auto', 'cpu'\)",
        "parse: --mm-processor-device choices are platform-dependent (auto, cpu + the current "
        "platform's device type), so the profile leaves them open: a miss by design",
    ),
    (
        r"parse \[parse-exception\]: KeyError: '",
        "parse: an enum looked up by name in a before-validator (e.g. CUDAGraphMode["
        "value.upper()]) on a field that also has a wrap validator; the builder keeps one "
        "validator per field and leaves the value unchecked",
    ),
    (
        r"Invalid compilation mode",
        "parse: CompilationConfig.mode names are checked by a before-validator "
        "(value.upper() in CompilationMode.__members__) the builder does not read",
    ),
    (
        r"^miss-parse .*(greater than|less than|greater_than|less_than)",
        "parse: a numeric bound (Field(ge=/gt=/le=)) of a config field; the profile records "
        "no bounds",
    ),
    (
        r"^miss-parse .*(Input should be a valid (integer|boolean|string|list|array|dictionary"
        r"|number)|Input should be an object|Input is not a valid path)",
        "parse: a type refusal on a field with a before/wrap/plain validator or a non-builtin "
        "annotation, which the static check leaves unjudged (the validator may convert)",
    ),
    (
        r"^miss-parse .*(literal_error|Input should be ')",
        "parse: a Literal field behind a normalising before-validator; the static check "
        "leaves it unjudged",
    ),
    (
        r"^miss-parse .*Value error, ",
        "parse: a pydantic field/model validator with custom logic (often cross-field: a "
        "value only valid with another key) that the static config check does not model",
    ),
    (
        r"should have at least \d+ items? after validation",
        "parse: a length bound (Field(min_length=)) of a config field; the profile records no "
        "bounds",
    ),
    (
        r"Input should be a finite number",
        "late: pydantic refuses NaN/inf for a number field (the JSON option's text parses with "
        "NaN); not modelled",
    ),
    (
        r"Field required \[type=missing",
        "late: a config field without a default (required) is missing from the JSON value; the "
        "static check does not know which fields are required",
    ),
    (
        r"^miss-parse .*(Assertion failed|assert)",
        "parse: an assert inside a validator of the config class",
    ),
    (
        r"^miss-parse .*Unexpected keyword argument",
        "parse: pydantic refuses the key as an init keyword (private or init=False field "
        "behind a model validator)",
    ),
    (
        r"^miss-parse .*invalid \w+ value",
        "parse: a custom argparse type= function refuses the text (not modelled)",
    ),
    (
        r"appears path-like, but doesn't exist",
        "host-dependent: the chat template string looks like a path and must exist on the "
        "serving host; a static check cannot know the host's files",
    ),
    (
        r"^miss-late .*Unable to use nsight profiling unless workers run with Ray",
        "late: ParallelConfig's nsight check reads the use_ray property over a backend "
        "__post_init__ picks (parallel.py); the builder does not inline properties: not modelled",
    ),
    (
        r"^miss-late .*num_speculative_tokens (was provided but without speculative model"
        r"|must be provided with speculative model)",
        "late: SpeculativeConfig infers a missing method (draft_model, ngram, a custom class) "
        "before this check, under two guards the walk cannot decide (a call on the model "
        "path); the check stays undecided without --spec-method / method",
    ),
    (
        r"^miss-late .*rope_scaling should have a 'rope_type' key",
        "late: --rope-scaling is merged into the model's HF config and checked there "
        "(transformers_utils/config.py patch_rope_scaling_dict); that data flow is not modelled",
    ),
    (
        r"^miss-late .*ZeroDivisionError: integer modulo by zero",
        "late: a size 0 divides inside a model-config check (heads % tensor_parallel_size, "
        "ModelConfig.verify_with_parallel_config), a part the builder keeps only as model checks",
    ),
    (
        r"Could not load logging config\. File does not exist|No such file|does not exist",
        "host-dependent: the value names a file that must exist on the serving host",
    ),
    (
        r"Repo id must use alphanumeric chars.*: '\s*'",
        "late: an empty or blank name is neither a local path nor a valid hub repository id "
        "(the hub client's repo-id check refuses it when the tokenizer/model is loaded); "
        "not modelled",
    ),
    (
        r"127\.0\.0\.1|Connection refused|LocalEntryNotFound|huggingface|Repository Not Found"
        r"|does not appear to have a file|not a valid model identifier|HFValidationError",
        "hub-dependent: the value names a model-hub repository or file that the engine fetches "
        "at start-up (the oracle has no hub); whether it exists is not a fact of the release",
    ),
    (
        r"requires VLLM_USE_RUST_FRONTEND|requires --|only be set when|requires a |require ",
        "cross-option: the value is valid but the engine requires another option, env var or "
        "model feature with it (checked in code, not modelled)",
    ),
    (
        r"Invalid kv_cache_dtype",
        "late set not extracted: CacheConfig validates kv_cache_dtype against its own list "
        "(not yet a profile late_values set)",
    ),
    (
        r"^miss-late .*(greater than|less than|greater_than|less_than|must be a non-negative"
        r"|must be positive|must be >)",
        "late: a numeric bound (Field(ge=/gt=) or a range check in code); the profile records "
        "no bounds",
    ),
    (
        r"Model Runner V|MRV2|model runner",
        "runner-dependent: the value needs the other model runner (VLLM_USE_V2_MODEL_RUNNER)",
    ),
    (
        r"[Nn]ot supported on CPU|CpuPlatform|on CPU|cpu platform|CUDA|cuda",
        "platform-dependent: rejected by the CPU platform the oracle runs on or needs a GPU "
        "feature; not a fact of the argv alone",
    ),
    (
        r"must be divisible|world_size|data_parallel|tp_size|pipeline",
        "cross-option: parallel sizes must fit each other and the device count",
    ),
    (
        r"^miss-late .*(fake|llama|mixtral|architecture|hf_config|model type|model_type)",
        "model-dependent: the fake model lacks the feature the value needs",
    ),
    (
        r"^miss-late .*(Input should be (0, 1, 2 or 3|a valid|')|literal_error)",
        "late: a type/enum refusal when the engine builds the config (the option's own type "
        "lets the text through); not modelled for this field",
    ),
    (
        r"^miss-late .*(Value error|ValueError|KeyError|AssertionError|Assertion failed|TypeError|"
        r"NotImplementedError|RuntimeError|AttributeError|ZeroDivisionError)",
        "late: a check in the engine's code (validator, registry lookup or raise on a value) "
        "that the profile does not record",
    ),
]

UNCLASSIFIED = "unclassified: no rule matches (read the oracle message)"


def reason_for(text: str) -> str:
    for pattern, reason in RULES:
        if re.search(pattern, text):
            return reason
    return UNCLASSIFIED


def describe(j) -> str:
    rec = j.oracle
    oracle = "accepted" if rec["ok"] else f"{rec['stage']} [{rec['tag']}]: {rec['msg']}"
    static = "accepted" if j.static.ok else f"{j.static.stage}: {j.static.message}"
    return f"{j.verdict} || {oracle} || {static} || {' '.join(j.case['argv'])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    reasons: list[str] = []
    listed: dict[str, dict[str, int]] = {}
    tally: Counter[str] = Counter()
    for version in VERSIONS:
        profile = profiles.load("vllm", version)
        if profile is None or not verdicts(version):
            continue
        for j in judge(profile, version):
            if j.verdict in AGREE:
                continue
            if j.verdict == "false-error":
                print(f"FALSE ERROR {version} {j.case['id']}: {describe(j)[:300]}")
                continue
            reason = reason_for(describe(j))
            if reason not in reasons:
                reasons.append(reason)
            listed.setdefault(version, {})[j.case["id"]] = reasons.index(reason)
            tally[reason] += 1
    for reason, n in tally.most_common():
        print(f"{n:6d}  {reason[:110]}")
    if not a.check:
        data = {
            "reasons": reasons,
            "cases": {v: dict(sorted(ids.items())) for v, ids in sorted(listed.items())},
        }
        KNOWN_FILE.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
        print(f"{sum(tally.values())} listed disagreements -> {KNOWN_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
