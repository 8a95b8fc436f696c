"""container arguments that do not fit the image's entrypoint

The ``vllm/vllm-openai`` image starts the server itself: ``docker run IMAGE MODEL
--flags`` is the shape it expects. Its entrypoint is read per release from the release's
own Dockerfile (``engines/vllm/image_entrypoints.json``): ``vllm serve`` from 0.11.1,
``python3 -m vllm.entrypoints.openai.api_server`` up to 0.11.0. Repeating either after
the image hands those words to the parser as arguments, and it exits with
``unrecognized arguments``.

Bad:

```markdown bad
~~~bash
docker run --gpus all vllm/vllm-openai:v0.27.1 vllm serve Qwen/Qwen3-8B
~~~
```

Good:

```markdown good
~~~bash
docker run --gpus all vllm/vllm-openai:v0.27.1 Qwen/Qwen3-8B
~~~
```

Fix: drop the command words after the image, or set ``--entrypoint``.
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL181"
NAME = "entrypoint-shape"
SEVERITY = Severity.ERROR
SCOPE = Scope.FILE  # emitted by the pipeline from reader problems
FIX = FixSafety.NONE

