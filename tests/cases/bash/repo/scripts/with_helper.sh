#!/usr/bin/env bash
source "$(dirname "$0")/../lib/helpers.sh"
install_deps
start_server "--max-model-len 4096"
