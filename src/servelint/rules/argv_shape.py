"""the words a command passes are not the ones its author meant

Two shapes, both found by the readers in the text as written:

* an argv-list item holding a space (``"--max-model-len auto"`` as one YAML item of
  ``base_args``): pasted into a shell it splits into two words and works, but as container
  ``args:``, a JSON argv or ``subprocess`` it is one word, which argparse takes for a
  positional and rejects;
* a line-continuation mistake: a space or a comment after the ``\\`` (the command gets a
  stray ``" "`` argument, an array a ``" "`` element, and the next line runs on its own), or a
  launch line without the ``\\`` while the next line goes on with ``--flags`` (they never reach
  the engine).

Bad:

```bash bad image=vllm/vllm-openai:v0.27.1
vllm serve Qwen/Qwen3-8B
  --max-model-len 4096
```

Good:

```bash good image=vllm/vllm-openai:v0.27.1
vllm serve Qwen/Qwen3-8B \\
  --max-model-len 4096
```

Fix: one word per argv item; end each continued line with a bare ``\\``.
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL182"
NAME = "argv-shape"
SEVERITY = Severity.WARNING
SCOPE = Scope.FILE  # emitted by the pipeline from reader problems
FIX = FixSafety.NONE
FIX_TEXT = "one word per argv item; end each continued line with a bare backslash"
