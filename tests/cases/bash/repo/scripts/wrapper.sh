#!/usr/bin/env bash
exec env CHILD_MODE=fast bash "$(dirname "$0")/child.sh" "$@"
