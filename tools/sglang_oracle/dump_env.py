"""Dump the real `Envs` registry: VENV/bin/python dump_env.py OUT.json

{name: {"class": EnvBool..., "default": repr, "deprecated_name": ...}} plus the
_DEPRECATED_ENVS keys when the release has that table.
"""

from __future__ import annotations

import json
import sys

import oracle_common  # noqa: F401  (stubs)
from sglang.srt import environ

out = {}
for name, field in vars(environ.Envs).items():
    if isinstance(field, environ.EnvField):
        out[name] = {"class": type(field).__name__, "default": repr(field.default),
                     "deprecated_name": getattr(field, "deprecated_name", None)}
deprecated = sorted(getattr(environ, "_DEPRECATED_ENVS", {}))
json.dump({"registry": out, "deprecated_table": deprecated}, open(sys.argv[1], "w"), indent=1)
print(len(out), "envs", len(deprecated), "deprecated")
