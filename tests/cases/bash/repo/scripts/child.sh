#!/usr/bin/env bash
python3 -m sglang.launch_server --model-path m --mode "$CHILD_MODE"
