"""Kubernetes manifests: any YAML stream whose documents are objects (``apiVersion`` and
``kind``), ``helm template`` output included. Claimed by content, never by folder name."""

from __future__ import annotations

import re
from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_manifests = on_first_use("servelint.sources.kubernetes.reader", "read_manifests")

_YAML = {".yaml", ".yml"}
_API = re.compile(r"^apiVersion:[ \t]*[\w./\-]+[ \t]*(#.*)?$", re.M)
_KIND = re.compile(r"^kind:[ \t]*[A-Za-z]\w*[ \t]*(#.*)?$", re.M)


def is_manifest(text: str) -> bool:
    """Top-level ``apiVersion:`` and ``kind:`` keys with plain values (a template's
    ``{{ … }}`` there is not a plain value)."""
    return _API.search(text) is not None and _KIND.search(text) is not None


class KubernetesReader:
    name = "kubernetes"

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in _YAML:
            return False
        text = head.text(1 << 16)
        return is_manifest(text) and "{{" not in text

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_manifests(path)
