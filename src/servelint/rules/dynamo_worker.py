"""option the Dynamo worker rejects though the engine accepts it

``python -m dynamo.vllm`` parses its own options, then gives the rest of the command line
to a vLLM parser built from ``AsyncEngineArgs.add_cli_args`` only — ``vllm serve``'s
API-server options (``--host``, ``--port``, ``--api-server-count``, ``--tool-call-parser``,
…) are not in it, so the worker exits with ``unrecognized arguments`` where ``vllm serve``
would start. A Dynamo option given a value outside its choices fails the same way. The
finding names the ai-dynamo release and the worker's own file and line; the engine half of
the command is judged against the engine release of the container as usual.

Bad (an API-server option passed to the Dynamo vLLM worker):

```srtslurm bad
dynamo: {version: "1.3.1"}
model: {path: m, container: "vllm/vllm-openai:v0.21.0", precision: fp8}
resources: {gpu_type: b200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
backend:
  type: vllm
  connector: null
  vllm_config:
    aggregated: {tensor-parallel-size: 8, api-server-count: 2}
```

Good:

```srtslurm good
dynamo: {version: "1.3.1"}
model: {path: m, container: "vllm/vllm-openai:v0.21.0", precision: fp8}
resources: {gpu_type: b200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
backend:
  type: vllm
  connector: null
  vllm_config:
    aggregated: {tensor-parallel-size: 8}
```

Fix: drop the option, use the worker's own spelling, or start ``vllm serve`` directly
(srt-slurm ``frontend.type: vllm``).
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL109"
NAME = "dynamo-worker-flag"
SEVERITY = Severity.ERROR
SCOPE = Scope.FILE  # emitted by servelint.engines.dynamo.launch for Dynamo worker launches
FIX = FixSafety.NONE
