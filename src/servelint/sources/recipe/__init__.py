"""vLLM recipe YAML (``models/<org>/<model>.yaml`` of a recipes checkout): the launches the
recipes site renders, plus those of the recipe's ``guide:`` Markdown."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use
from servelint.sources.kubernetes import is_manifest

read_recipe = on_first_use("servelint.sources.recipe.reader", "read_recipe")

_YAML = {".yaml", ".yml"}
_SUPPORT_NAMES = {"taxonomy.yaml", "platforms.yaml"}
_SUPPORT_DIRS = {"strategies", "kv_store"}


class RecipeReader:
    name = "recipe"

    def support_file(self, path: Path) -> bool:
        return path.suffix.lower() in _YAML and (
            path.name in _SUPPORT_NAMES or path.parent.name in _SUPPORT_DIRS
        )

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in _YAML:
            return False
        if "models" in path.parts:  # a recipes checkout's folder: a YAML there is a recipe
            # unless its content says otherwise (a manifest, a Helm chart's files, another
            # project's model tables: sgl-cookbook's data/models/src/v0.5.10/gemma4.yaml has
            # top-level keys and neither a recipe's model: nor its variants:)
            head_text = head.text(1 << 16)
            return not is_manifest(head_text) and not _helm_chart_file(path, head_text) \
                and not _other_tables(head_text)
        text = "\n" + head.text(1 << 20)
        return "\nmodel:" in text[:4097] and "variants:" in text

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_recipe(path)


def _other_tables(text: str) -> bool:
    """A mapping whose top-level keys include neither ``model`` nor ``variants``."""
    keys = {line.split(":", 1)[0] for line in text.splitlines()
            if line[:1].isalpha() and ":" in line}
    return bool(keys) and not keys & {"model", "variants"}


def _helm_chart_file(path: Path, text: str) -> bool:
    """``Chart.yaml``, or a values file / template of a chart (a ``Chart.yaml`` beside it or
    one folder up): what Helm reads, never a recipe."""
    if path.name == "Chart.yaml" or "{{" in text:
        return True
    return any((d / "Chart.yaml").is_file() for d in (path.parent, path.parent.parent))
