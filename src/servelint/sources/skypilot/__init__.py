"""SkyPilot task YAML: ``setup`` and ``run`` are bash run in that order on each node (in the
``image_id: docker:IMAGE`` container when there is one), with ``envs`` as environment.
Claimed by content: a top-level ``run:`` with SkyPilot's other task keys."""

from __future__ import annotations

import re
from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_task = on_first_use("servelint.sources.skypilot.reader", "read_task")

_RUN = re.compile(r"^run:", re.M)
_TASK_KEYS = re.compile(r"^(resources|setup|envs|num_nodes|file_mounts|workdir|secrets):", re.M)


class SkyPilotReader:
    name = "skypilot"

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in (".yaml", ".yml"):
            return False
        text = head.text(1 << 16)
        return _RUN.search(text) is not None and _TASK_KEYS.search(text) is not None \
            and re.search(r"^(apiVersion|kind|services):", text, re.M) is None

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_task(path)
