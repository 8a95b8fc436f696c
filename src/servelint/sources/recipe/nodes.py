"""Small helpers over recipe nodes shared by the renderer modules: token lists, the env map,
and the hardware-keyed lookups of the recipes site."""

from __future__ import annotations

import re

from servelint.model import EnvVar, Span, Token
from servelint.sources.common.placeholders import is_placeholder
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, js_string
from servelint.sources.recipe.load import HardwareProfile, Recipe, scalar_value

_SYMBOLIC = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$")


def is_symbolic(text: str) -> bool:
    """A value the launch leaves to the shell (``$HEAD_IP``) or to the reader (``<model>``,
    ``{tp}``, ``your-model``): never judged as a value."""
    return bool(_SYMBOLIC.match(text)) or is_placeholder(text)


def str_list(node: Node | None) -> list[Token]:
    """Tokens of a YAML list of strings (non-strings read as JavaScript ``String(x)``).
    Each call gets a fresh list of the list's shared Tokens (tokens are never mutated)."""
    return list(seq_tokens(node))


def seq_tokens(node: Node | None) -> tuple[Token, ...]:
    """:func:`str_list` as the tuple computed once per YAML list."""
    if node.__class__ is not Seq:
        return ()
    found = node.token_parts  # type: ignore[union-attr]
    if found is None:
        tokens = []
        for item in node.items:  # type: ignore[union-attr]
            # the site drops falsy entries (null, "", 0, false) before rendering
            if isinstance(item, Scalar) and item.value not in (None, "", 0, False):
                text = js_string(item.value)
                tokens.append(Token(text, item.span, is_symbolic(text)))
        found = node.token_parts = tuple(tokens)  # type: ignore[union-attr]
    return found


def str_set(node: Node | None) -> set[str]:
    return {t.text for t in seq_tokens(node)}


def synth(text: str, span: Span | None) -> Token:
    """A token the site generates (size flags, rendezvous flags)."""
    return Token(text, span, is_symbolic(text))


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
    found = recipe.anchors.get(variant)
    if found is None:
        variants = recipe.node("variants")
        key = variants.key_node(variant) if isinstance(variants, Map) else None
        found = recipe.anchors[variant] = key.span if key is not None else recipe.root.span
    return found


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
