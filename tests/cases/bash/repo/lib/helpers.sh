# helper library sourced by scripts/with_helper.sh
export HELPER_FLAG=1
start_server() {
    local extra="$1"
    vllm serve "$MODEL" --port 8000 $extra
}
install_deps() {
    python3 -m pip install --no-cache-dir 'vllm-router==0.1.14'
}
