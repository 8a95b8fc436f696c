"""The JSON tables bundled under ``servelint/data/<folder>/`` (chart value maps, controller
maps). Each reader that uses a folder reads it once, into a module constant at import (the
files are part of the installed package; four folders, ~60 KB, a few tenths of a ms each)."""

from __future__ import annotations

import json
from importlib import resources


def json_folder(folder: str) -> tuple[dict, ...]:
    """The ``*.json`` documents of ``servelint/data/<folder>``, by file name."""
    base = resources.files("servelint") / "data" / folder
    return tuple(json.loads(f.read_text(encoding="utf-8"))
                 for f in sorted(base.iterdir(), key=lambda f: f.name)
                 if f.name.endswith(".json"))
