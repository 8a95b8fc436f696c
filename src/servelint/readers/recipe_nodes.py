"""Small helpers over recipe nodes shared by the renderer modules: token lists, the env map,
and the hardware-keyed lookups of the recipes site."""

from __future__ import annotations

import re

from servelint.model import EnvVar, Span, Token
from servelint.readers.recipe import HardwareProfile, Recipe, scalar_value
from servelint.readers.yamlpos import Map, Node, Scalar, Seq, js_string

_SYMBOLIC = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$")


def is_symbolic(text: str) -> bool:
    """A value the launch leaves to the shell (``$HEAD_IP``): never judged as a value."""
    return bool(_SYMBOLIC.match(text))


def str_list(node: Node | None) -> list[Token]:
    """Tokens of a YAML list of strings (non-strings read as JavaScript ``String(x)``)."""
    if not isinstance(node, Seq):
        return []
    parts = node.token_parts
    if parts is None:  # computed once per YAML list; each call still gets fresh Tokens
        found = []
        for item in node.items:
            # the site drops falsy entries (null, "", 0, false) before rendering
            if isinstance(item, Scalar) and item.value not in (None, "", 0, False):
                text = js_string(item.value)
                found.append((text, item.span, is_symbolic(text)))
        parts = node.token_parts = tuple(found)
    return [Token(text, span, symbolic) for text, span, symbolic in parts]


def str_set(node: Node | None) -> set[str]:
    if not isinstance(node, Seq):
        return set()
    if node.token_parts is None:
        str_list(node)
    return {text for text, _, _ in node.token_parts or ()}


def synth(text: str, span: Span | None) -> Token:
    """A token the site generates (size flags, rendezvous flags)."""
    return Token(text, span, symbolic=is_symbolic(text))


def opt_str(node: Node | None) -> str | None:
    value = scalar_value(node)
    return None if value is None else js_string(value)


def number(node: Node | None) -> float | None:
    value = scalar_value(node)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def gen_block(node: Node | None, hw: HardwareProfile) -> Map | None:
    """A generation-keyed block; the ``nvidia`` key is a fallback for NVIDIA GPUs only."""
    if not isinstance(node, Map):
        return None
    block = node.get(hw.generation) if hw.generation else None
    if not isinstance(block, Map) and hw.brand == "NVIDIA":
        block = node.get("nvidia")
    return block if isinstance(block, Map) else None


def exact_block(node: Node | None, hw: HardwareProfile) -> Map | None:
    block = node.get(hw.id) if isinstance(node, Map) else None
    return block if isinstance(block, Map) else None


def hw_keyed(node: Node | None, hw: HardwareProfile) -> Node | None:
    """Lookup keyed exact GPU id > generation > lowercase brand > ``default`` (null skipped)."""
    if not isinstance(node, Map):
        return None
    for key in (hw.id, hw.generation, hw.brand.lower(), "default"):
        value = node.get(key) if key else None
        if value is not None and not (isinstance(value, Scalar) and value.value is None):
            return value
    return None


def variant_anchor(recipe: Recipe, variant: str) -> Span:
    """The span of ``variants.<v>`` (its key), the recipe's anchor for a rendering."""
    variants = recipe.node("variants")
    key = variants.key_node(variant) if isinstance(variants, Map) else None
    return key.span if key is not None else recipe.root.span


class EnvMap:
    """Env built by successive assignment; a key keeps the position of its first insertion.
    Each entry's span is the key of the layer that set the winning value."""

    def __init__(self) -> None:
        self.vars: dict[str, EnvVar] = {}

    def apply(self, node: Node | None) -> None:
        if not isinstance(node, Map):
            return
        for key, value in node.entries:
            text = js_string(value.value) if isinstance(value, Scalar) else ""
            self.set(js_string(key.value), text, key.span)

    def set(self, name: str, value: str, span: Span | None) -> None:
        if name in self.vars:
            var = self.vars[name]
            var.value, var.span, var.symbolic = value, span, is_symbolic(value)
        else:
            self.vars[name] = EnvVar(name, value, span, is_symbolic(value))

    def drop(self, name: str) -> None:
        self.vars.pop(name, None)

    def items(self) -> list[EnvVar]:
        return list(self.vars.values())
