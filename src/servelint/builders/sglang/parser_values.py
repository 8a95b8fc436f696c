"""Small readers of SGLang's option declarations: values as profile strings, type names,
help texts, and where ``ServerArgs`` lives."""

from __future__ import annotations

import ast
import json
from typing import Any

from servelint.builders.static_eval import UNKNOWN

SERVER_ARGS = "sglang/srt/server_args.py"
SERVER_MOD = "sglang.srt.server_args"
FIELDS_DIR = "sglang/srt/arg_groups/fields/"
STD_ACTIONS = {
    "store",
    "store_true",
    "store_false",
    "store_const",
    "append",
    "append_const",
    "count",
    "help",
    "version",
    "extend",
}
TYPE_NAMES = {"int": "int", "float": "float", "str": "str", "bool": "bool"}


def stringify(value: Any) -> str | None:
    if value is UNKNOWN or value is None:
        return None
    if isinstance(value, bool | int | float | str):
        return str(value)
    try:
        return json.dumps(value if not isinstance(value, set | tuple) else list(value))
    except (TypeError, ValueError):
        return None


def choice_strings(value: Any) -> tuple[list[str] | None, bool]:
    """(choices as strings, unresolved?)"""
    if value is None:
        return None, False
    if isinstance(value, set | frozenset):  # argparse shows a set in hash order: sort
        return sorted(str(v) for v in value), False
    if isinstance(value, list | tuple | dict):
        return [str(v) for v in value], False
    return None, True


def first_help_line(value: Any) -> str:
    if isinstance(value, str):
        return value.strip().split("\n", 1)[0][:300]
    return ""


class Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = Missing()


def flatten_union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return flatten_union(node.left) + flatten_union(node.right)
    return [node]


def is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or name_of(node) == "None"


def name_of(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def type_name(name: str | None) -> str:
    if name in TYPE_NAMES:
        return TYPE_NAMES[name]
    if name in {"loads", "json_list_type"}:
        return "json"
    if name == "human_readable_int":  # sglang/srt/utils/common.py: 1k / 1Mi / plain int
        return "human_int"
    return "other"


def help_says_deprecated(help_text: str) -> bool:
    low = help_text.lower()
    return low.startswith("deprecated") or "(deprecated" in low or "is deprecated" in low
