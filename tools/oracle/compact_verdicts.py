#!/usr/bin/env python3
"""Turn raw oracle records (record_verdicts.py) into the committed verdict file.

    python3 tools/oracle/compact_verdicts.py /tmp/oracle-raw/0.27.1.jsonl \
        --cases tests/conformance/cases.jsonl --out tests/conformance/verdicts/0.27.1.jsonl.gz

One line per case, in corpus order:
  {"id", "stage", "ok", "msg" (error line + detail lines, <= 300 chars), "raised_at", "tag", "deep"}
stage: the first stage that failed (main, parse, validate, serve_cmd, api_args,
engine_args, engine_config, renderer), "accepted", or oracle-timeout / oracle-error;
deep: whether engine_config and renderer ran for this case.
tag says what kind of rejection it is:
  argparse             argparse error (exit 2)
  parse-exception      exception raised inside parse_args (traceback, exit 1)
  cli-main             `--omni` hand-over without vllm-omni
  late:<target>        the case's late-checked value was rejected (its text is in the message)
  missing-package      ImportError / ModuleNotFoundError (venv or optional package), or a
                       package's absence the engine reports in its own words (MISSING_PACKAGE)
  artefact:fake-model  the fake model/tokenizer caused it (see ARTEFACTS)
  artefact:platform    only the oracle's CPU platform makes this check (see PLATFORM_ARTEFACTS);
                       a CUDA deployment, which servelint judges, never meets it
  post-parse           any other post-parse rejection (fake model, CPU platform, numeric
                       ranges, missing files, ...): judge msg / raised_at
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path


def _summary(text: str | None) -> str:
    """The error line plus its detail lines (pydantic lists the field and the reason on
    the following lines), joined with " | ", at most 300 characters."""
    lines = [
        line.strip()
        for line in (text or "").splitlines()
        if line.strip() and not line.strip().startswith("For further information")
    ]
    return " | ".join(lines)[:300]


# Post-parse failures caused by the sandbox, not by the argv: the fake model's 1000-token
# tokenizer has no think/special tokens that reasoning parsers look up.
ARTEFACTS = (
    ("artefact:fake-model", re.compile(r"could not locate .*tokens? in the tokeni[sz]er")),
    ("artefact:fake-model", re.compile(r"^KeyError: '<")),
    ("artefact:fake-model", re.compile(r"tokenizer is missing special tokens")),
    ("artefact:fake-model", re.compile(r"Make sure that a Mistral tokenizer is present")),
)


# Post-parse failures that only the oracle's platform (CPU, no CUDA) produces:
#  - any raise in the CPU platform's own module, e.g. 0.11.0 vllm/platforms/cpu.py:151 (the
#    block size needs intel_extension_for_pytorch) and :159 (FP8 KV cache with chunked prefill);
#  - a raise under `not current_platform.is_cuda()`, e.g. 0.33.0 vllm/config/vllm.py:1884-1885
#    "HiSparse currently requires NVIDIA CUDA.".
#  - a raise under `not current_platform.is_sleep_mode_available()` (True on CUDA, ROCm, XPU:
#    0.33.0 vllm/platforms/interface.py:231-236), e.g. 0.33.0 vllm/config/model.py:667-668
#    "Sleep mode is not supported on current platform." and the cumem allocator's twin;
#  - the base platform's `int(device_id)` (0.33.0 vllm/platforms/interface.py:267-275, "… is
#    not supported by cpu"): CUDA looks a non-integer up as a GPU UUID on the node instead
#    (vllm/platforms/cuda.py:754-759), which only the node can answer;
#  - a backend only CUDA offers, refused off CUDA (0.33.0 vllm/engine/arg_utils.py:2872
#    "--kda-prefill-backend=flashkda is only available on CUDA.");
#  - Model Runner V1 chosen because the oracle has no Triton (never installed: resolve_deps.py
#    NEVER_INSTALL; the CUDA torch wheel brings it): 0.33.0 VllmConfig.use_v2_model_runner
#    returns False when `not HAS_TRITON` (vllm/config/vllm.py:752-756), so "AuxOutput Connector
#    requires Model Runner V2" (:1200), "trace replay requires Model Runner V2" (:1340),
#    "sampling distribution replay requires Model Runner V2" (:1309) and "Model Runner V1 does
#    not support: …" (:3332-3336) are met only there; 0.27.1 says it outright ("Model Runner
#    V2 requires Triton.").
PLATFORM_ARTEFACTS = (
    ("raised_at", re.compile(r"^vllm/platforms/cpu\.py:")),
    ("message", re.compile(r"currently requires NVIDIA CUDA")),
    ("message", re.compile(r"(Sleep mode|cumem allocator) is not supported on current platform")),
    ("message", re.compile(r"^ValueError: Non-integer device ID .* is not supported by cpu\.")),
    ("message", re.compile(r"is only available on CUDA\.")),
    ("message", re.compile(r"Model Runner V2 requires Triton")),
    ("message", re.compile(r"(AuxOutput Connector|trace replay|sampling distribution replay) "
                           r"requires Model Runner V2")),
    ("message", re.compile(r"Model Runner V1 does not support: ")),
)

# Post-parse failures of a package the release requires (or whose absence it reports as
# such) that the oracle venv does not hold: a deployment that installed the release has it.
#  - OpenTelemetry: ObservabilityConfig refuses otlp_traces_endpoint when the OpenTelemetry
#    packages do not import ("OpenTelemetry is not available … Ensure OpenTelemetry packages
#    are installed", 0.11.0);
#  - Ray: ParallelConfig's "Failed to import Ray: No module named 'ray'" (the import error
#    wrapped in a ValueError);
#  - python-json-logger (a Requires-Dist of 0.33.0): the logging dictConfig names
#    pythonjsonlogger.jsonlogger.JsonFormatter for --logging-config.formatter json
#    (0.33.0 vllm/logger.py:240-246), which fails to import: "Unable to configure formatter
#    'vllm_json'".
MISSING_PACKAGE = (
    re.compile(r"OpenTelemetry is not available"),
    re.compile(r"Failed to import Ray: No module named"),
    re.compile(r"Unable to configure formatter 'vllm_json'"),
)


def missing_package(message: str) -> bool:
    return any(pattern.search(message or "") for pattern in MISSING_PACKAGE)


def platform_artefact(raised_at: str, message: str) -> bool:
    fields = {"raised_at": raised_at or "", "message": message or ""}
    return any(pattern.search(fields[field]) for field, pattern in PLATFORM_ARTEFACTS)


def _mentions(message: str, value: str) -> bool:
    """The rejected value's own text appears in the message (as a token)."""
    return (
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", message, re.IGNORECASE)
        is not None
    )


def _late_value(case: dict) -> str | None:
    """The text of the value the case varies: its late-checked value (make_cases) or, for
    adversarial cases (make_adversarial), the value given to `value_of`."""
    target = case.get("late") or case.get("value_of")
    if not target:
        return None
    argv = case["argv"]
    if "." in target and target.split(".", 1)[0] in ("speculative_config",) and case.get("late"):
        body = json.loads(argv[-1])
        return str(body.get(target.split(".", 1)[1]))
    if case.get("origin") == "json-field":
        body = json.loads(argv[-1])
        for part in target.split(".")[1:]:
            body = body.get(part) if isinstance(body, dict) else None
        return None if body is None or isinstance(body, bool) else str(body)
    if case.get("origin") == "value-equals":  # ["m", "--opt=VALUE"]
        value = argv[-1].split("=", 1)[1].strip()
        return value if len(value) >= 2 else None
    if case.get("value_of") and (len(argv) < 3 or argv[-1].startswith("-")):
        return None
    value = argv[-1].strip()
    return value if len(value) >= 2 else None


def tag_of(case: dict, rec: dict) -> str:
    stage = rec.get("rejected_at")
    if rec.get("verdict") != "rejected" or not stage:
        return ""
    info = rec.get("stages", {}).get(stage, {})
    kind = info.get("kind") or ""
    exc = info.get("exception") or ""
    if stage == "main":
        return "cli-main"
    if stage == "parse":
        return "argparse" if kind == "argparse" else "parse-exception"
    message = rec.get("message") or ""
    if exc in ("ImportError", "ModuleNotFoundError") or kind.startswith("missing-optional"):
        return "missing-package"
    if missing_package(_summary(message)):
        return "missing-package"
    for tag, pattern in ARTEFACTS:
        if pattern.search(message):
            return tag
    if platform_artefact(info.get("raised_at") or "", message):
        return "artefact:platform"
    value = _late_value(case)
    if value is not None and _mentions(rec.get("message") or "", value):
        return f"late:{case.get('late') or case['value_of']}"
    return "post-parse"


def compact(case: dict, rec: dict) -> dict:
    verdict = rec.get("verdict")
    if verdict == "rejected":
        stage, ok = rec.get("rejected_at"), False
    elif verdict in ("accepted", "exited-0"):
        stage, ok = "accepted", True
    else:
        stage, ok = str(verdict), False
    info = rec.get("stages", {}).get(rec.get("rejected_at") or "", {})
    return {
        "id": case["id"],
        "stage": stage,
        "ok": ok,
        "msg": _summary(rec.get("message")) if not ok else "",
        "raised_at": info.get("raised_at") or "",
        "tag": tag_of(case, rec),
        # records without the key come from an all-deep (--deep) run
        "deep": bool(rec.get("deep", True)),
    }


def _write_gz(path: Path, lines: list[str]) -> None:
    payload = ("\n".join(lines) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
        gz.write(payload)


def retag_platform(path: Path) -> int:
    """Tag the platform artefacts and missing packages of a committed verdict file in place;
    returns how many."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    changed = 0
    for rec in records:
        if rec["ok"] or rec["tag"] in ("argparse", "parse-exception", "cli-main"):
            continue
        tag = rec["tag"]
        if tag not in ("missing-package", "artefact:platform") and missing_package(rec["msg"]):
            tag = "missing-package"
        elif tag != "artefact:platform" and platform_artefact(rec["raised_at"], rec["msg"]):
            tag = "artefact:platform"
        if tag != rec["tag"]:
            rec["tag"] = tag
            changed += 1
    _write_gz(path, [json.dumps(rec, sort_keys=True) for rec in records])
    return changed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", type=Path)
    ap.add_argument("--cases", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--retag-platform",
        action="store_true",
        help="RAW is a committed verdict file: tag its platform artefacts in place",
    )
    a = ap.parse_args()
    if a.retag_platform:
        print(f"{retag_platform(a.raw)} artefacts tagged in {a.raw}")
        return 0
    if a.cases is None or a.out is None:
        ap.error("--cases and --out are required")
    opener = gzip.open if a.cases.suffix == ".gz" else open
    with opener(a.cases, "rt", encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    raw = {}
    for line in a.raw.read_text().splitlines():
        rec = json.loads(line)
        raw[rec["id"]] = rec
    missing = [c["id"] for c in cases if c["id"] not in raw]
    if missing:
        raise SystemExit(f"{len(missing)} cases have no oracle record, e.g. {missing[:3]}")
    lines = [json.dumps(compact(c, raw[c["id"]]), sort_keys=True) for c in cases]
    _write_gz(a.out, lines)
    print(f"{len(lines)} verdicts -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
