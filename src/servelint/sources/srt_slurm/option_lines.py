"""A ``trtllm_config`` role block as the YAML file srtctl writes, one line per key or item.

srtctl's ``build_worker_command`` (``src/srtctl/backends/trtllm.py``) writes the role's
dict with ``yaml.safe_dump`` to ``/logs/trtllm_config_<mode>.yaml``, and TensorRT-LLM reads
it back with ``yaml.safe_load``: the values TensorRT-LLM sees are the Python values the recipe
loader built, so each scalar is re-dumped with ``yaml.safe_dump`` (a string ``"yes"`` stays
quoted, a YAML 1.1 ``on`` already became ``True``). Each line carries the span of its key or
item in the recipe, shifted so that a column in the generated line lands on the recipe's.
"""

from __future__ import annotations

import json

import yaml

from servelint.engines import registry
from servelint.model import Span
from servelint.sources.srt_slurm.tree import Node

Line = tuple[str, Span | None, bool]
_STEP = "  "


def option_lines(block: Node) -> tuple[Line, ...]:
    """The lines of the file written from ``block`` (a mapping; anything else: one line)."""
    out: list[Line] = []
    if block.is_map:
        _mapping(block, "", out)
    else:
        out.append((_scalar(block.plain()), _at(block.span, 0), _symbolic(block.value)))
    return tuple(out)


def _mapping(node: Node, indent: str, out: list[Line]) -> None:
    for name, entry in node.entries():
        key = _scalar(entry.raw_key if entry.raw_key is not None else name)
        head = f"{indent}{key}:"
        span = _at(entry.key_span, len(indent))
        _value(entry.node, head, indent, span, out)


def _value(node: Node, head: str, indent: str, span: Span | None, out: list[Line]) -> None:
    if node.is_map and node.value:
        out.append((head, span, False))
        _mapping(node, indent + _STEP, out)
    elif node.is_list and node.value:
        out.append((head, span, False))
        dash = f"{indent}{_STEP}-"
        for item in node.value:  # type: ignore[union-attr]
            if item.is_map and item.value:
                out.append((dash, _at(item.span, len(dash) - 1), False))
                _mapping(item, indent + _STEP * 2, out)
            else:  # a scalar, or a list in flow style
                text = f"{dash} {_scalar(item.plain())}"
                out.append((text, _at(item.span, len(dash) + 1), _symbolic(item.value)))
    else:
        text = _scalar(node.plain())
        out.append((f"{head} {text}", span, _symbolic(node.value)))


def _scalar(value: object) -> str:
    """``value`` as ``yaml.safe_dump`` writes it inside a mapping (flow style for {} / []),
    on one line (a string with line breaks as a JSON string, which YAML reads the same)."""
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        return json.dumps(value)
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 30, allow_unicode=True)
    text = text.rstrip("\n")
    if text.endswith("\n..."):
        text = text[: -len("\n...")]
    return text.replace("\n", " ")


def _symbolic(value: object) -> bool:
    """A template left in the value (``${X}``, ``{{ x }}``): what it becomes is not known."""
    return isinstance(value, str) and ("${" in value or "{{" in value)


def _at(span: Span | None, indent: int) -> Span | None:
    """The span for a generated line whose text starts ``indent`` columns before the recipe's."""
    if span is None:
        return None
    return Span(span.path, span.line, max(1, span.column - indent), span.line, None)


def engine_option_file(engine: str, files: dict[str, Node]) -> tuple[Line, ...] | None:
    """The option file a launch's engine judges itself (``Engine.option_file_checks``): the
    one config file srtctl writes for the role, or None."""
    found = registry.find(engine)
    if found is None or not found.option_file_checks or len(files) != 1:
        return None
    return option_lines(next(iter(files.values())))
