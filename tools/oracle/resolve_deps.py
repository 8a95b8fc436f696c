#!/usr/bin/env python3
"""Import-driven minimal dependency resolver for an oracle venv.

Usage (run with any python3, NOT necessarily the venv's):
    resolve_deps.py VENV WHEEL [--probe parser|full] [--max-rounds N]

Loop: run a probe inside VENV; if it dies with ModuleNotFoundError for module
M, map M to a PyPI distribution, take the version specifier vLLM's wheel
metadata (Requires-Dist) gives for that distribution, and `pip install` it
under a constraints file made from all of vLLM's Requires-Dist lines (minus
torch*/GPU pins), so that transitive installs land on versions vLLM accepts.
Each install is first resolved with `pip install --dry-run --report`; the
resolved set minus GPU/huge packages (torch*, triton, nvidia-*, flashinfer,
...) is then installed with --no-deps. (Without this, xgrammar alone drags in
~1 GB of triton.) Repeats until the probe succeeds.

The probe (probe_env.py) builds the real `vllm serve` parser and, with
--probe full, also runs the post-parse CPU-reachable checks used by
check_argv.py (EngineArgs.from_cli_args, config construction on a local
fake model).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# import name -> distribution name (only where they differ after normalising)
MODULE_TO_DIST = {
    "PIL": "pillow",
    "zmq": "pyzmq",
    "yaml": "pyyaml",
    "cv2": "opencv-python-headless",
    "google": "protobuf",
    "cpuinfo": "py-cpuinfo",
    "pythonjsonlogger": "python-json-logger",
    "lmformatenforcer": "lm-format-enforcer",
    "multipart": "python-multipart",
    "python_multipart": "python-multipart",
    "dotenv": "python-dotenv",
    "jwt": "pyjwt",
    "sklearn": "scikit-learn",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "typing_extensions": "typing-extensions",
    "sentencepiece": "sentencepiece",
    "opentelemetry": "opentelemetry-api",
    "google_protobuf": "protobuf",
    "importlib_metadata": "importlib-metadata",
    "cachetools": "cachetools",
    "prometheus_client": "prometheus-client",
    "jsonschema_specifications": "jsonschema-specifications",
    "huggingface_hub": "huggingface-hub",
    "triton": "triton",  # never installed: see NEVER_INSTALL
    "tvm_ffi": "apache-tvm-ffi",
    "openai_harmony": "openai-harmony",
    "mistral_common": "mistral-common",
    "outlines_core": "outlines-core",
}

# Installed up front in one resolver pass (saves ~20 probe rounds). These are
# what the serve-parser import path of 0.2x releases needed; SEED_IF_REQUIRED
# entries are only seeded when the wheel's Requires-Dist lists them.
SEED_ALWAYS = ["numpy", "packaging", "pyyaml", "urllib3", "uvloop"]
SEED_IF_REQUIRED = [
    "regex", "psutil", "fastapi", "cbor2", "pyzmq", "transformers", "aiohttp",
    "requests", "openai-harmony", "openai", "msgspec", "cloudpickle", "pillow",
    "pybase64", "cachetools", "py-cpuinfo", "prometheus-client", "pydantic",
    "einops",
]

# Packages we refuse to install: GPU-only, huge, or replaced by the CPU torch.
NEVER_INSTALL = {
    "torch", "torchaudio", "torchvision", "torchcodec", "triton",
    "flashinfer-python", "flashinfer-cubin", "flashinfer-jit-cache",
    "tilelang", "nvidia-cudnn-frontend", "nvtx",
    "nvidia-cutlass-dsl", "quack-kernels", "tokenspeed-mla", "humming-kernels",
    "pynvvideocodec", "fastsafetensors", "xformers", "vllm-flash-attn",
    "cupy-cuda12x", "ray", "deep-gemm", "deep-ep", "pplx-kernels",
}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def banned(name: str) -> bool:
    k = norm(name)
    return (k in NEVER_INSTALL or k.startswith("nvidia-") or k.startswith("cuda-")
            or k.startswith("torch"))


def _clean(text: str) -> str:
    keep = [line for line in text.splitlines()
            if "is ignored: it is neither a file nor a directory" not in line]
    return "\n".join(keep[-40:])


def wheel_requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    return [
        line.split(":", 1)[1].strip()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]


_REQ_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def split_req(req: str):
    """-> (name, extras, spec, marker)"""
    body, _, marker = req.partition(";")
    m = _REQ_RE.match(body)
    if not m:
        return None
    name, extras, spec = m.group(1), m.group(2) or "", m.group(3).strip()
    spec = spec.strip("() ")
    return name, extras, spec, marker.strip()


def base_requirements(reqs: list[str]) -> dict[str, tuple[str, str, str, str]]:
    out = {}
    for r in reqs:
        sp = split_req(r)
        if not sp:
            continue
        name, extras, spec, marker = sp
        if "extra ==" in marker or "extra==" in marker:
            continue  # optional extras
        out[norm(name)] = (name, extras, spec, marker)
    return out


def era_constraints(reqs: dict) -> list[str]:
    """Pins a release's metadata forgot because the breaking version did not
    exist yet. transformers 5 broke vLLM releases whose requirement has no
    upper bound and does not mention 5.x (e.g. 0.11.0: '>=4.55.2'); a fresh
    `pip install vllm==0.11.0` today gets transformers 5 and fails when it
    loads a tokenizer."""
    out = []
    t = reqs.get("transformers")
    if t is not None:
        clauses = [c.strip() for c in t[2].split(",") if c.strip()]
        mentions_5 = any(re.match(r"^[<>=!~]{1,3}\s*([5-9]|\d\d)\.", c)
                         for c in clauses)
        has_upper = any(c.startswith("<") for c in clauses)
        if not mentions_5 and not has_upper:
            out.append("transformers<5")
    return out


def write_constraints(reqs: dict, path: Path) -> None:
    lines = list(era_constraints(reqs))
    for key, (name, _extras, spec, marker) in sorted(reqs.items()):
        if key in NEVER_INSTALL or not spec:
            continue
        line = f"{name}{spec}"
        if marker:
            line += f"; {marker}"
        lines.append(line)
    path.write_text("\n".join(lines) + "\n")


def install_plan(pip: list[str], venv: Path, targets: list[str], label: str,
                 installed: list[dict]) -> int:
    """Resolve targets (+deps) with pip --dry-run, install the non-banned
    part of the plan with --no-deps."""
    t1 = time.time()
    report = venv / "oracle-pip-report.json"
    dp = subprocess.run(pip + ["--dry-run", "--report", str(report)] + targets,
                        capture_output=True, text=True)
    if dp.returncode != 0:
        print(_clean(dp.stdout + dp.stderr))
        return 5
    plan = json.loads(report.read_text()).get("install", [])
    pins, skipped = [], []
    for item in plan:
        md = item.get("metadata", {})
        n, v = md.get("name", ""), md.get("version", "")
        (skipped if banned(n) else pins).append(f"{n}=={v}")
    print(f"[resolve] {label} -> {' '.join(targets)}: install {' '.join(pins)}"
          + (f" (skipped: {' '.join(skipped)})" if skipped else ""), flush=True)
    if pins:
        ip = subprocess.run(pip + ["--no-deps"] + pins, capture_output=True,
                            text=True)
        if ip.returncode != 0:
            print(_clean(ip.stdout + ip.stderr))
            return 5
    installed.append({"label": label, "requirements": targets, "installed": pins,
                      "skipped": skipped, "seconds": round(time.time() - t1, 1)})
    return 0


def run_probe(venv: Path, mode: str) -> subprocess.CompletedProcess:
    py = venv / "bin" / "python"
    return subprocess.run(
        [str(py), str(HERE / "probe_env.py"), mode],
        capture_output=True,
        text=True,
        timeout=900,
    )


MISSING_RE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
PKG_RE = re.compile(r"PackageNotFoundError: No package metadata was found for ([A-Za-z0-9_.-]+)")
# e.g. fastapi: 'Form data requires "python-multipart" to be installed.'
REQUIRES_RE = re.compile(r'requires "([A-Za-z0-9_.-]+)" to be installed')


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("venv")
    ap.add_argument("wheel")
    ap.add_argument("--probe", default="full", choices=["parser", "full"])
    ap.add_argument("--max-rounds", type=int, default=80)
    ap.add_argument("--log", default=None)
    ap.add_argument("--no-seed", action="store_true",
                    help="do not pre-install the common seed set")
    ap.add_argument("--also", nargs="*", default=[],
                    help="extra requirements to install (resolved like seeds)")
    a = ap.parse_args()

    venv = Path(a.venv)
    reqs = base_requirements(wheel_requires(Path(a.wheel)))
    cons = venv / "oracle-constraints.txt"
    write_constraints(reqs, cons)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
           "--disable-pip-version-check", "--no-input", "-c", str(cons)]

    installed: list[dict] = []
    tried: set[str] = set()
    t0 = time.time()
    if not a.no_seed:
        seeds = list(SEED_ALWAYS)
        for d in SEED_IF_REQUIRED:
            if norm(d) in reqs:
                seeds.append(d)
        targets = []
        for d in seeds:
            key = norm(d)
            tried.add(key)
            if key in reqs:
                name, _extras, spec, _m = reqs[key]
                targets.append(f"{name}{spec}")
            else:
                targets.append(d)
        targets += era_constraints(reqs)
        rc = install_plan(pip, venv, targets, "seed", installed)
        if rc:
            return rc
    if a.also:
        rc = install_plan(pip, venv, list(a.also), "also", installed)
        if rc:
            return rc
    for rnd in range(a.max_rounds):
        cp = run_probe(venv, a.probe)
        if cp.returncode == 0:
            print(f"[resolve] probe '{a.probe}' OK after {rnd} install rounds "
                  f"({time.time() - t0:.1f}s)")
            print(cp.stdout.strip()[-2000:])
            if a.log:
                Path(a.log).write_text(json.dumps(
                    {"installed": installed, "probe": a.probe,
                     "seconds": round(time.time() - t0, 1)}, indent=2))
            return 0
        m = MISSING_RE.findall(cp.stdout + cp.stderr)
        pm = PKG_RE.findall(cp.stdout + cp.stderr) + REQUIRES_RE.findall(
            cp.stdout + cp.stderr)
        if not m and pm:
            m = [pm[-1]]
        if m and m[-1].split(".")[0] == "vllm":
            print(f"[resolve] probe needs vLLM's own module '{m[-1]}' (pruned "
                  "compiled extension?):\n" + (cp.stdout + cp.stderr)[-4000:])
            return 7
        if not m:
            print("[resolve] probe failed for a reason other than a missing "
                  "module:\n" + (cp.stdout + cp.stderr)[-6000:])
            return 2
        module = m[-1]
        top = module.split(".")[0]
        dist = MODULE_TO_DIST.get(top, top)
        key = norm(dist)
        if key in NEVER_INSTALL:
            print(f"[resolve] probe needs '{module}' ({dist}), which is on the "
                  "never-install list:\n" + (cp.stdout + cp.stderr)[-4000:])
            return 3
        if key in tried:
            print(f"[resolve] already installed {dist} but '{module}' is still "
                  "missing:\n" + (cp.stdout + cp.stderr)[-4000:])
            return 4
        tried.add(key)
        if key in reqs:
            name, extras, spec, _marker = reqs[key]
            # drop extras such as fastapi[standard]: install the bare package;
            # the probe will ask for anything else it really imports.
            target = f"{name}{spec}"
        else:
            target = dist
        rc = install_plan(pip, venv, [target], f"round {rnd}: missing '{module}'",
                          installed)
        if rc:
            return rc
    print("[resolve] too many rounds")
    return 6


if __name__ == "__main__":
    sys.exit(main())
