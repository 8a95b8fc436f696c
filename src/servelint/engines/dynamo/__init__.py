"""NVIDIA Dynamo worker entrypoints (``python -m dynamo.vllm|sglang|trtllm``).

A Dynamo worker parses its own options first (``parse_known_args``) and hands the rest to
the engine's parser; its profile (one per ``ai-dynamo`` release, built from the wheel by
:mod:`.build`) records both halves. :mod:`.worker` splits a launch's argv the way the
worker does, so the engine half is judged against the engine release and the Dynamo half
against the Dynamo release.
"""

from servelint.engines.base import Engine

# No launchers or images of its own: a Dynamo worker launch is a launch of the engine it
# wraps (engine "vllm", entrypoint "python3 -m dynamo.vllm"); servelint.engines.dynamo.launch
# splits its argv. The registry entry makes its profiles visible to `servelint profile`.
ENGINE = Engine(name="dynamo", package="ai-dynamo")
