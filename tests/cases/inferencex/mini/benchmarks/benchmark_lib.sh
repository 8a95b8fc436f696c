export PORT="${PORT:-8888}"
check_env_vars() {
    for v in "$@"; do
        if [[ -z "${!v:-}" ]]; then echo "missing $v"; exit 1; fi
    done
}
