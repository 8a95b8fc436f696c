#!/usr/bin/env bash
vllm serve "$MODEL" --tensor-parallel-size 1 --data-parallel-size "$TP" --speculative-config '{"method":"mtp"}'
