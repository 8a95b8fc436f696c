"""NVIDIA Dynamo worker entrypoints (``python -m dynamo.vllm|sglang|trtllm``).

A Dynamo worker parses its own options first (``parse_known_args``) and hands the rest to
the engine's parser; its profile (one per ``ai-dynamo`` release, built from the wheel by
:mod:`.build`) records both halves. :mod:`.worker` splits a launch's argv the way the
worker does, so the engine half is judged against the engine release and the Dynamo half
against the Dynamo release.
"""

from servelint.engines.base import Engine, Module
from servelint.engines.dynamo.entrypoints import WORKER_MODULES

# No images of its own: a Dynamo worker launch is a launch of the engine it wraps (engine
# "vllm", entrypoint "python3 -m dynamo.vllm", ``Module.starts``); its launch adapter
# (servelint.engines.dynamo.launch) splits the argv. The registry entry also makes its
# profiles visible to `servelint profile`. The frontend starts no engine of its own: it is
# judged only where a reader knows the backend (srt-slurm recipes).
ENGINE = Engine(
    name="dynamo",
    package="ai-dynamo",
    launchers=(
        *(Module(f"dynamo.{w}", f"python3 -m dynamo.{w}", starts=w)
          for w in ("vllm", "sglang", "trtllm")),
        # the frontend starts no engine: its launch is Dynamo's own, judged against the
        # ai-dynamo release by the launch adapter (no engine rules)
        Module("dynamo.frontend", "python3 -m dynamo.frontend"),
    ),
    shell_words=("dynamo.",),
    launch_adapter="servelint.engines.dynamo.launch",
    adapted_entrypoints=tuple(WORKER_MODULES),
)
