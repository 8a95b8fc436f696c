#!/bin/bash
# the line of issue 27: the same in a guide (trtllm_guide.md) and in a script
trtllm-serve meta-llama/Llama-3.1-8B --tp_size 8 --bogus_flag 1
