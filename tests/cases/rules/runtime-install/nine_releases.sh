#!/bin/bash
# Adversarial (issue 33): one install line before a launch whose release is one of nine
# pinned ones. SL161 does not depend on the release: one finding, not nine.
pip install fastokens
case $V in
  0) pip install vllm==0.10.0;;
  1) pip install vllm==0.11.0;;
  2) pip install vllm==0.12.0;;
  3) pip install vllm==0.13.0;;
  4) pip install vllm==0.14.0;;
  5) pip install vllm==0.15.0;;
  6) pip install vllm==0.16.0;;
  7) pip install vllm==0.17.0;;
  8) pip install vllm==0.18.0;;
esac
vllm serve org/m --max-num-seqs 2
