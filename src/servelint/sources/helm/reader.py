"""Read a Helm template as manifests with its expressions symbolic, or a values file through
the chart mapping it is for."""

from __future__ import annotations

from servelint.sources.base import ReadResult
from servelint.sources.helm.llmd import llmd_charts_of, read_llmd_values
from servelint.sources.helm.objects import object_charts_of, read_object_values
from servelint.sources.helm.values import read_values
from servelint.sources.kubernetes import is_manifest
from servelint.sources.kubernetes.reader import read_manifests, read_text
from servelint.sources.templates.branches import each_branch, templated


def read_helm(path: str) -> ReadResult:
    text, failed = read_text(path)
    if text is None:
        return failed
    if "{{" in text and is_manifest(text):
        return read_template(path, text, "helm")
    if object_charts_of(text):
        return read_object_values(path, text)
    if llmd_charts_of(text):
        return read_llmd_values(path, text)
    return read_values(path, text)


def read_template(path: str, text: str, origin: str) -> ReadResult:
    """A templated manifest: its expressions as placeholders, then read as manifests."""
    return each_branch(text, lambda p: templated(read_manifests(
        path, p.text, origin, frozenset(p.unknown_lines))))
