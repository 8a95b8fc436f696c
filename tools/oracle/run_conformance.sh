#!/usr/bin/env bash
# Record the conformance verdicts of one vLLM release with its real parser:
#   tools/oracle/run_conformance.sh VERSION
# builds the venv if needed (build_env.sh), adds ijson (a hard requirement of vLLM >= 0.21
# that the dependency probe does not reach), runs every case of
# tests/conformance/cases.jsonl (deep stages for late/handpicked cases, parse..engine_args
# for the parser mutations), resuming a partial raw file, and writes
# tests/conformance/verdicts/VERSION.jsonl.gz (raw records stay in /tmp/oracle-raw).
set -euo pipefail
VERSION="${1:?usage: run_conformance.sh VERSION}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="${ORACLE_VENV_ROOT:-/tmp/oracle-venvs}/vllm-$VERSION"
RAW="${ORACLE_RAW_DIR:-/tmp/oracle-raw}/$VERSION.jsonl"
bash "$HERE/build_env.sh" "$VERSION"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check ijson
"$VENV/bin/python" "$HERE/record_verdicts.py" "$REPO/tests/conformance/cases.jsonl" \
    --deep-origins "${ORACLE_DEEP_ORIGINS:-late,late-ignored,handpicked}" --resume --out "$RAW"
python3 "$HERE/compact_verdicts.py" "$RAW" --cases "$REPO/tests/conformance/cases.jsonl" \
    --out "$REPO/tests/conformance/verdicts/$VERSION.jsonl.gz"
