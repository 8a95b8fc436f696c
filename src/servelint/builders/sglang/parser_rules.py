"""Facts of SGLang's argv handling besides the options: how ``--config`` is noticed and
merged, and the accepted values the release rewrites with a warning."""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.sglang.parser_values import SERVER_ARGS, SERVER_MOD
from servelint.builders.static_eval import Evaluator
from servelint.builders.wheel import WheelSource


def config_trigger(fn: ast.FunctionDef | None) -> str | None:
    """How prepare_server_args notices a config file: ``"--config" in argv`` = exact token."""
    if fn is None:
        return None
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and node.left.value == "--config"
            and isinstance(node.ops[0], ast.In)
        ):
            return "exact_token"
    return None


def logging_level_dests(fn: ast.FunctionDef | None) -> dict[str, Any] | None:
    """``getattr(logging, raw_args.DEST.upper())`` in prepare_server_args: the dests whose
    value must name a ``logging`` level before the server starts (and the line)."""
    if fn is None:
        return None
    dests, line = [], 0
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "logging"
        ):
            arg = node.args[1]
            if (
                isinstance(arg, ast.Call)
                and isinstance(arg.func, ast.Attribute)
                and arg.func.attr == "upper"
                and isinstance(arg.func.value, ast.Attribute)
            ):
                dests.append(arg.func.value.attr)
                line = node.lineno
    return {"dests": dests, "source": f"{SERVER_ARGS}:{line}"} if dests else None


def config_merge_rules(src: WheelSource) -> dict[str, Any]:
    """Facts of the release's ConfigArgumentMerger that decide the merged argv."""
    path = next(
        (
            p
            for p in (
                "sglang/srt/utils/server_args_config_parser.py",
                "sglang/srt/server_args_config_parser.py",
            )
            if src.exists(p)
        ),
        None,
    )
    if path is None:
        return {}
    text = src.read(path)
    tree = src.parse(path)
    order = "config_first"
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.BinOp):
            first = node.value
            while isinstance(first, ast.BinOp):
                first = first.left
            if isinstance(first, ast.Name) and first.id != "config_args":
                order = "cli_first"
    # `if not config_file_path: return cli_args`: an empty path leaves argv as it is
    passthrough = any(
        isinstance(node, ast.If)
        and isinstance(node.test, ast.UnaryOp)
        and isinstance(node.test.op, ast.Not)
        and isinstance(node.test.operand, ast.Name)
        and node.body
        and isinstance(node.body[0], ast.Return)
        and isinstance(node.body[0].value, ast.Name)
        for node in ast.walk(tree)
    )
    return {
        "empty_path_passthrough": passthrough,
        "mapping_values": mapping_values(tree, path),
        "source": path,
        "order": order,
        "unsupported_action_error": "unsupported_actions" in text,
        "store_true_false_skipped": "store_true_actions" in text,
        "suffixes": [".yaml", ".yml"] if '".yml"' in text else [".yaml"],
    }


def mapping_values(tree: ast.Module, path: str) -> dict[str, str]:
    """How ``_convert_config_to_args`` turns a mapping value (``key: {a: 1}``) into the one
    argv value: ``json`` where an ``isinstance(value, dict)`` branch calls ``json.dumps``,
    else ``str`` (the scalar branch's ``str(value)``: Python's repr of the dict)."""
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "_convert_config_to_args"):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Call)
                and isinstance(node.test.func, ast.Name)
                and node.test.func.id == "isinstance"
                and len(node.test.args) == 2
                and isinstance(node.test.args[1], ast.Name)
                and node.test.args[1].id == "dict"
                and any(
                    isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Attribute)
                    and c.func.attr == "dumps"
                    and isinstance(c.func.value, ast.Name)
                    and c.func.value.id == "json"
                    for stmt in node.body
                    for c in ast.walk(stmt)
                )
            ):
                return {"form": "json", "source": f"{path}:{node.lineno}"}
        return {"form": "str", "source": f"{path}:{fn.lineno}"}
    return {"form": "str", "source": path}


def value_remaps(ev: Evaluator, cls: ast.ClassDef) -> list[dict[str, Any]]:
    """``{old: new}`` dicts in ``ServerArgs._handle_deprecated_args`` guarding
    ``if self.<dest> in <dict>``: accepted values the release rewrites with a warning."""
    out: list[dict[str, Any]] = []
    for fn in cls.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "_handle_deprecated_args"):
            continue
        tables: dict[str, tuple[dict, int]] = {}
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Dict)
            ):
                table = ev.eval(node.value, SERVER_MOD)
                if isinstance(table, dict) and all(
                    isinstance(k, str) and isinstance(v, str) for k, v in table.items()
                ):
                    tables[node.targets[0].id] = (table, node.lineno)
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Compare)
                and len(node.ops) == 1
                and isinstance(node.ops[0], ast.In)
                and isinstance(node.left, ast.Attribute)
                and isinstance(node.comparators[0], ast.Name)
                and node.comparators[0].id in tables
            ):
                table, line = tables[node.comparators[0].id]
                for old, new in table.items():
                    out.append(
                        {
                            "dest": node.left.attr,
                            "from": old,
                            "to": new,
                            "source": f"{SERVER_ARGS}:{line}",
                        }
                    )
    return out
