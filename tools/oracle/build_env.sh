#!/usr/bin/env bash
# Build a CPU-only venv that holds the REAL `vllm serve` parser of one vLLM
# release:  oracle/build_env.sh VERSION   (e.g. 0.27.1)
#
#   venv:   /tmp/oracle-venvs/vllm-VERSION      (ORACLE_VENV_ROOT)
#   wheels: /tmp/wheels/vllm                     (ORACLE_WHEEL_DIR; /tmp/vsrc is
#                                                 also searched first)
#
# Steps: download the vLLM wheel (no deps) -> python3.11 venv -> torch 2.13.0
# CPU (lies on the machine's disk; pinned torch of the release is
# ignored) -> `pip install --no-deps` the vLLM wheel -> resolve_deps.py
# installs, one by one, only what the serve-parser import path and
# check_argv.py's post-parse stages import (versions constrained by the
# wheel's Requires-Dist; GPU packages never installed).
#
# Env knobs:
#   ORACLE_PYTHON=python3.11   interpreter for the venv
#   ORACLE_TORCH=2.13.0        torch version to install (CPU wheel)
#   ORACLE_PROBE=full|parser   full (default): parser + deep checks work;
#                              parser: only what dump_parser.py needs
#   ORACLE_PRUNE_SO=0|1        1: delete vLLM's compiled CUDA extensions
#                              (vllm/**/*.so, ~0.7 GB) after the build; they
#                              are never loaded on this path. Default 0.
#   ORACLE_FORCE=1             rebuild even if the venv exists
#   ORACLE_FREEZE=FILE         a pip freeze of an earlier build of this release (e.g.
#                              out/VERSION/pip-freeze.txt): its pins are installed with
#                              --no-deps before the resolve loop, which then usually
#                              passes its first probe (saves ~10 probe rounds)
set -euo pipefail

VERSION="${1:?usage: build_env.sh VERSION}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${ORACLE_VENV_ROOT:-/tmp/oracle-venvs}"
WHEELS="${ORACLE_WHEEL_DIR:-/tmp/wheels/vllm}"
PY="${ORACLE_PYTHON:-python3.11}"
TORCH="${ORACLE_TORCH:-2.13.0}"
PROBE="${ORACLE_PROBE:-full}"
VENV="$ROOT/vllm-$VERSION"
LOG="$ROOT/vllm-$VERSION.build.log"

mkdir -p "$ROOT" "$WHEELS"
if [[ -x "$VENV/bin/python" && "${ORACLE_FORCE:-0}" != "1" ]] \
    && [[ -f "$VENV/oracle-build.json" ]]; then
  echo "[build_env] $VENV exists (ORACLE_FORCE=1 to rebuild)"; cat "$VENV/oracle-build.json"; exit 0
fi
rm -rf "$VENV"

now() { date +%s.%N; }
T0=$(now)
exec > >(tee "$LOG") 2>&1
quiet() { grep -v "is ignored: it is neither a file nor a directory" || true; }

# 1. the wheel -------------------------------------------------------------
find_wheel() {
  ls -1 /tmp/vsrc/vllm-"$VERSION"-*.whl "$WHEELS"/vllm-"$VERSION"-*.whl 2>/dev/null \
    | grep -E "vllm-$VERSION-([0-9]+-)?cp[0-9]+-(abi3|cp[0-9]+)-manylinux[^/]*x86_64\.whl$" \
    | head -1 || true
}
WHEEL="$(find_wheel)"
T1=$(now)
if [[ -z "$WHEEL" ]]; then
  echo "[build_env] downloading vllm==$VERSION wheel (no deps)"
  "$PY" -m pip download --disable-pip-version-check --no-deps --only-binary :all: \
      "vllm==$VERSION" -d "$WHEELS" 2>&1 | quiet | tail -3
  WHEEL="$(find_wheel)"
fi
[[ -n "$WHEEL" ]] || { echo "[build_env] no wheel for vllm==$VERSION"; exit 1; }
T2=$(now)
echo "[build_env] wheel: $WHEEL ($(du -h "$WHEEL" | cut -f1))"

# 2. venv + torch (CPU, from disk) + vLLM without dependencies ---------------
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "torch==$TORCH" 2>&1 | quiet | tail -3
T3=$(now)
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$WHEEL" 2>&1 | quiet | tail -3
T4=$(now)

# 3. only the imports the oracle needs ----------------------------------------
if [[ -n "${ORACLE_FREEZE:-}" ]]; then
  grep -viE '^(torch|vllm|triton|nvidia|-e |#)' "$ORACLE_FREEZE" > "$VENV/oracle-seed-freeze.txt"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
      -r "$VENV/oracle-seed-freeze.txt" 2>&1 | quiet | tail -3
fi
"$PY" "$HERE/resolve_deps.py" "$VENV" "$WHEEL" --probe "$PROBE" \
    --log "$VENV/oracle-resolve.json"
T5=$(now)

if [[ "${ORACLE_PRUNE_SO:-0}" == "1" ]]; then
  SP="$("$VENV/bin/python" -c 'import vllm,os;print(os.path.dirname(vllm.__file__))')"
  echo "[build_env] pruning $(find "$SP" -name '*.so' | wc -l) compiled extensions under $SP"
  find "$SP" -name '*.so' -delete
  "$VENV/bin/python" "$HERE/probe_env.py" "$PROBE" >/dev/null
fi

SIZE_MB=$(du -sm "$VENV" | cut -f1)
TORCH_MB=$(du -sm "$VENV"/lib/python3*/site-packages/torch | cut -f1)
VLLM_MB=$(du -sm "$VENV"/lib/python3*/site-packages/vllm | cut -f1)
NPKG=$("$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | tail -n +3 | wc -l)
"$PY" - "$VENV/oracle-build.json" <<EOF
import json, sys
d = {
  "vllm_version": "$VERSION", "venv": "$VENV", "wheel": "$WHEEL",
  "probe": "$PROBE", "torch": "$TORCH", "pruned_so": "${ORACLE_PRUNE_SO:-0}" == "1",
  "seconds": {
    "wheel_download": round($T2 - $T1, 1),
    "venv_and_torch": round($T3 - $T2, 1),
    "vllm_no_deps": round($T4 - $T3, 1),
    "resolve_deps": round($T5 - $T4, 1),
    "total": round($(now) - $T0, 1),
  },
  "venv_mb": $SIZE_MB, "torch_mb": $TORCH_MB, "vllm_pkg_mb": $VLLM_MB,
  "packages": $NPKG,
}
json.dump(d, open(sys.argv[1], "w"), indent=1)
print(json.dumps(d, indent=1))
EOF
"$VENV/bin/python" -m pip freeze --disable-pip-version-check > "$VENV/oracle-freeze.txt" 2>/dev/null || true
echo "[build_env] done: $VENV"
