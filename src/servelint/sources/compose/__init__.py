"""docker-compose files: each service's ``image``, ``entrypoint``, ``command`` and
``environment``, as launches. Claimed by name (``compose.yaml``, ``docker-compose*.yml``)
or by content (a top-level ``services:`` mapping that is no Kubernetes object)."""

from __future__ import annotations

import re
from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_compose = on_first_use("servelint.sources.compose.reader", "read_compose")

_NAME = re.compile(r"^(docker-)?compose([.\-][\w.\-]+)?\.ya?ml$|\.compose\.ya?ml$", re.I)
_SERVICES = re.compile(r"^services:[ \t]*(#.*)?$", re.M)
_SERVICE_KEY = re.compile(r"^[ \t]+(image|build|command|entrypoint):", re.M)


class ComposeReader:
    name = "compose"

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in (".yaml", ".yml"):
            return False
        if _NAME.search(path.name):
            return True
        text = head.text(1 << 16)
        return _SERVICES.search(text) is not None and _SERVICE_KEY.search(text) is not None \
            and re.search(r"^(apiVersion|kind|run):", text, re.M) is None

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_compose(path)
