"""Probe: can the tree's LLM API model and trtllm-serve command be imported here?

VENV/bin/python tools/trtllm_oracle/probe.py TREE
"""

from __future__ import annotations

import sys
import traceback

import oracle_env

oracle_env.setup(sys.argv[1])
try:
    from tensorrt_llm.llmapi import llm_args

    print("llm_args ok:", llm_args.TorchLlmArgs.__name__, len(llm_args.TorchLlmArgs.model_fields))
    from tensorrt_llm.commands import serve

    print("serve ok:", [p.name for p in serve.serve.params][:5])
except Exception:
    traceback.print_exc()
print("stubbed:", sorted({m.split(".")[0] for m in oracle_env.STUBBED}))
