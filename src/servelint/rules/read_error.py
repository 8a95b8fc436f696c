"""file that servelint cannot read or parse

A file that is not valid YAML, not UTF-8, too large, of the wrong shape, or bash that no
parser accepts. The run goes on with the other files.

Bad:

```yaml bad
model: [unclosed
```

Good:

```yaml good
model: {model_id: org/model}
```

Fix: repair the file (the message says where).
"""

from __future__ import annotations

from servelint.model import FixSafety, Severity
from servelint.rules.base import Scope

CODE = "SL001"
NAME = "read-error"
SEVERITY = Severity.ERROR
SCOPE = Scope.FILE  # emitted by the pipeline from reader problems
FIX = FixSafety.NONE

