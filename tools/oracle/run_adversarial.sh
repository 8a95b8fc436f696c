#!/usr/bin/env bash
# Record the real parser's verdicts on the adversarial corpus of one vLLM release:
#   tools/oracle/run_adversarial.sh VERSION
# builds the venv if needed (build_env.sh; ORACLE_FREEZE speeds it up), generates the corpus
# from the release's dumps and its own site-packages (make_adversarial.py), serves a stand-in
# hub that answers 404 (fake_hub.py: no network here), runs every case with the deep stages
# (resuming a partial raw file) and writes tests/conformance/adversarial/VERSION.verdicts.jsonl.gz.
# Cost on the shared 2-core host: ~0.1 s per case idle, ~0.2-0.35 s at load 10.
set -euo pipefail
VERSION="${1:?usage: run_adversarial.sh VERSION}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="${ORACLE_VENV_ROOT:-/tmp/oracle-venvs}/vllm-$VERSION"
RAW="${ORACLE_RAW_DIR:-/tmp/oracle-raw}/adversarial-$VERSION.jsonl"
CASES="$REPO/tests/conformance/adversarial/$VERSION.cases.jsonl.gz"
PORT="${ORACLE_HUB_PORT:-18914}"
bash "$HERE/build_env.sh" "$VERSION"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check ijson
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# ORACLE_ADV_ARGS: extra generator flags (0.11.0: --wide, see make_adversarial.py)
python3 "$HERE/make_adversarial.py" "$VERSION" --source "$SITE" --out "$CASES" ${ORACLE_ADV_ARGS:-}
python3 "$HERE/fake_hub.py" "$PORT" & HUB=$!
trap 'kill $HUB' EXIT
mkdir -p "$(dirname "$RAW")"
HF_ENDPOINT="http://127.0.0.1:$PORT" nice -n 10 "$VENV/bin/python" "$HERE/record_verdicts.py" \
    "$CASES" --resume --timeout 20 --out "$RAW"
python3 "$HERE/compact_verdicts.py" "$RAW" --cases "$CASES" \
    --out "$REPO/tests/conformance/adversarial/$VERSION.verdicts.jsonl.gz"
