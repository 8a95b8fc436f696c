"""A recipe's ``guide:`` string read as Markdown, with spans in the recipe YAML.

For a literal block scalar (``guide: |``, ``|-``, ``|2`` …) line ``i`` of the value is file
line ``header + 1 + i`` and column ``c`` is file column ``indent + c``: spans are exact.
Folded (``>``), quoted and plain scalars fold or unescape their lines, so a value line has
no single file line: every span of such a guide is put at the scalar's start instead.
Each guide launch then carries what the recipe's own renderings set
(the flags compared are attached by :mod:`servelint.sources.recipe.guide_flags`; the
guide-drift rule compares them).
"""

from __future__ import annotations

import re

from servelint.model import Span
from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.common.yamlpos import Map, Scalar, Seq, YamlDoc, at, load_yaml
from servelint.sources.markdown.reader import MarkdownResult, read_markdown
from servelint.sources.recipe.guide_flags import annotate
from servelint.sources.recipe.guide_hardware import headings
from servelint.sources.recipe.rendering import FLOOR_KEY

# a recipe (recipes.vllm.ai's format) serves its model with vLLM: its renderings' engine
RECIPE_ENGINE = "vllm"
_HEADER = re.compile(r"^\|(?:([1-9])[-+]?|[-+]([1-9])?)?\s*(#.*)?$")


def literal_origin(file_lines: list[str], scalar: Scalar, key_column: int,
                   value: str) -> tuple[int, int] | None:
    """(line, column) of the value's first character for a literal block scalar, else None."""
    row = scalar.span.line - 1
    if row >= len(file_lines):
        return None
    header = file_lines[row][scalar.span.column - 1:].rstrip()
    m = _HEADER.match(header)
    if not m:
        return None
    explicit = m.group(1) or m.group(2)
    body = file_lines[row + 1:]
    if explicit:
        indent = key_column - 1 + int(explicit)
    else:
        first = next((ln for ln in body if ln.strip()), None)
        if first is None:
            return None
        indent = len(first) - len(first.lstrip(" "))
    # the value must be the file lines with the indentation removed (else do not map)
    for i, line in enumerate(value.splitlines()[:50]):
        if line and (row + 1 + i >= len(file_lines) or file_lines[row + 1 + i][indent:] != line):
            return None
    return row + 2, indent + 1


def _is_omni(root: Map) -> bool:
    tasks = at(root, "meta", "tasks")
    return isinstance(tasks, Seq) and any(isinstance(t, Scalar) and t.value == "omni"
                                          for t in tasks)


def recipe_image(root: Map) -> tuple[str, Span] | None:
    """The recipe's own NVIDIA image (``model.docker_image`` string, or its ``nvidia`` entry,
    or that entry's first CUDA-keyed tag), where the site runs its commands."""
    node = at(root, "model", "docker_image")
    if isinstance(node, Map):
        node = node.get("nvidia")
    if isinstance(node, Map):
        node = next((v for _, v in node.items() if isinstance(v, Scalar)), None)
    if isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip():
        return node.value.strip(), node.span
    return None


def read_recipe_guide(
    recipe_path: str, renderings: list | None = None, doc: YamlDoc | None = None
) -> MarkdownResult:
    """Launches in the recipe's ``guide:``, compared with the recipe's renderings (pass
    ``renderings`` when already rendered: rendering a recipe is the costly part; ``doc``
    when the recipe is already composed)."""
    doc = doc if doc is not None else load_yaml(recipe_path)
    root = doc.root
    if not isinstance(root, Map):
        return MarkdownResult()
    guide = root.get("guide")
    if not isinstance(guide, Scalar) or not isinstance(guide.value, str) or not guide.value:
        return MarkdownResult()
    floor_node = at(root, "model", FLOOR_KEY)
    floor = str(floor_node.value) if isinstance(floor_node, Scalar) and \
        floor_node.value is not None else None
    floor_span = floor_node.span if isinstance(floor_node, Scalar) else None
    key = root.key_node("guide")
    key_column = key.span.column if key is not None else 1
    note(recipe_path)
    try:
        file_lines = overlay.read_bytes(recipe_path).decode("utf-8-sig").splitlines()
    except (OSError, UnicodeError):
        file_lines = []
    origin = literal_origin(file_lines, guide, key_column, guide.value)
    image = recipe_image(root)
    # the recipe's docker_image and min_vllm_version are about the engine its renderings run
    defaults = {"defaults_for": RECIPE_ENGINE, "floor_key": FLOOR_KEY}
    if origin is not None:
        result = read_markdown(recipe_path, guide.value, base_line=origin[0],
                               base_column=origin[1], floor=floor, floor_span=floor_span,
                               default_image=image, **defaults)
    else:  # folded/quoted/plain scalar: no line-for-line mapping (see module docstring)
        start = Span(recipe_path, guide.span.line, guide.span.column)
        result = read_markdown(recipe_path, guide.value, floor=floor, floor_span=floor_span,
                               fixed_span=start, default_image=image, **defaults)
    omni = _is_omni(root)
    sections = headings(guide.value) if origin is not None else []
    for spec in result.launches:
        spec.context["guide"] = "recipe"
        at_line = spec.anchor.line - origin[0] if origin is not None else -1
        if 0 <= at_line < len(sections) and sections[at_line]:
            spec.context["guide_section"] = sections[at_line] or ""
        if omni and spec.engine == "vllm":  # the site serves omni recipes with vLLM-Omni
            spec.engine = "vllm-omni"

    annotate(recipe_path, result.launches, renderings, root)
    return result
