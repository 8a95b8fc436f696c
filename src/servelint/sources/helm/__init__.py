"""Helm: a chart's templates (``{{ }}`` kept symbolic, see ``sources/templates/text.py``)
read as manifests, and the values files users keep for public charts whose engine command
servelint maps by reading the chart's own template (``sources/helm/values.py``)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use
from servelint.sources.helm.llmd import llmd_charts_of
from servelint.sources.helm.objects import object_charts_of
from servelint.sources.helm.values import charts_of
from servelint.sources.kubernetes import is_manifest

read_helm = on_first_use("servelint.sources.helm.reader", "read_helm")

_YAML = {".yaml", ".yml"}


class HelmReader:
    name = "helm"

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in _YAML:
            return False
        text = head.text(1 << 16)
        if "{{" in text and is_manifest(text):
            return True  # a chart template (a values file may hold `{{` in a chat template)

        return bool(charts_of(text) or object_charts_of(text) or llmd_charts_of(text))

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_helm(path)
