"""The JSON tables bundled under ``servelint/data/<folder>/`` (chart value maps, controller
maps), read once per process: every YAML file's claim test asks for them (181 times on the
vLLM recipes), and a folder read costs a few tenths of a millisecond. The files are part of
the installed package, so the memo holds for the whole run; one entry per folder."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def json_folder(folder: str) -> tuple[dict, ...]:
    """The ``*.json`` documents of ``servelint/data/<folder>``, by file name."""
    base = resources.files("servelint") / "data" / folder
    return tuple(json.loads(f.read_text(encoding="utf-8"))
                 for f in sorted(base.iterdir(), key=lambda f: f.name)
                 if f.name.endswith(".json"))
