"""file that servelint cannot read or parse

A file servelint cannot read fails the run (an error): missing, not a regular file, a
folder it may not list, too large, not decodable, malformed YAML, an alias bomb, nested too
deeply, not a mapping. A file it read but could not follow everywhere (bash syntax the
parser skipped, a construct or budget it stopped at) gets a warning. The run goes on with the
other files.

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

