#!/usr/bin/env bash
source "$(dirname "$0")/../lib/nope.sh"
vllm serve m
