"""One recipe file: its renderings as launch specs, then its ``guide:`` Markdown launches."""

from __future__ import annotations

from servelint.sources.base import ReadResult
from servelint.sources.recipe.guide import read_recipe_guide
from servelint.sources.recipe.render import render


def read_recipe(path: str) -> ReadResult:
    result = render(path)
    specs = [r.to_launch_spec() for r in result.renderings]
    guide = read_recipe_guide(path, result.renderings)  # compared with those renderings
    return ReadResult(specs + guide.launches, list(result.problems) + guide.problems)
