"""One recipe file: its renderings as launch specs, then its ``guide:`` Markdown launches,
each with the installs of the recipe's ``dependencies:`` block."""

from __future__ import annotations

from servelint.sources.base import ReadResult
from servelint.sources.common.yamlpos import load_yaml
from servelint.sources.recipe.dependencies import apply_dependencies, spaced_argv_items
from servelint.sources.recipe.guide import read_recipe_guide
from servelint.sources.recipe.render import render


def read_recipe(path: str) -> ReadResult:
    doc = load_yaml(path)  # composed once: the renderer, the guide and the checks share it
    result = render(path, doc=doc)
    specs = [r.to_launch_spec() for r in result.renderings]
    guide = read_recipe_guide(path, result.renderings, doc)  # compared with those renderings
    launches = specs + guide.launches
    apply_dependencies(path, launches, doc.root)
    problems = list(result.problems) + guide.problems + spaced_argv_items(path, doc.root)
    return ReadResult(launches, problems)
