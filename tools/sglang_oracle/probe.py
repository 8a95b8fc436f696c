"""Exit 0 when SGLang's server-args parser can be built in this interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle_common import build_parser  # noqa: E402

parser, _ = build_parser()
print(len(parser._actions))
