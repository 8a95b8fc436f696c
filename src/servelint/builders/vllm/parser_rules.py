"""Argv rules of a release's ``FlexibleArgumentParser.parse_args``, read from its source."""

from __future__ import annotations

import ast
import re
from typing import Any

from servelint.builders.astutil import ModuleIndex


def _parse_args_node(index: ModuleIndex) -> tuple[ast.FunctionDef | None, ast.ClassDef | None,
                                                   str]:
    for mod in ("vllm.utils.argparse_utils", "vllm.utils"):
        d = index.resolve(mod, "FlexibleArgumentParser")
        if d is not None and d.kind == "class":
            cls = d.node
            assert isinstance(cls, ast.ClassDef)
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef) and stmt.name == "parse_args":
                    return stmt, cls, index.file_of(d.module) or d.module
            return None, cls, index.file_of(d.module) or d.module
    return None, None, ""


def detect_rules(index: ModuleIndex) -> dict[str, Any]:
    fn, cls, path = _parse_args_node(index)
    rules: dict[str, Any] = {
        "underscore_to_dash": False, "dotted_keys": False, "dotted_prefix": None,
        "dash_O": None, "dash_O_values": [], "dash_O_dot_passthrough": False,
        "model_flag_to_positional": False, "served_model_name_needs_model": False,
        "config_file": False, "equals_form": True, "list_append_plus": False,
        "dotted_human_int": False, "source": "",
    }
    if fn is None:
        return rules
    text = ast.unparse(fn)
    rules["source"] = f"{path}:{fn.lineno}"
    rules["underscore_to_dash"] = "(?<=--)" in text and "replace('_', '-')" in text
    rules["dotted_keys"] = "create_nested_dict" in text or "nested_dict" in text
    if rules["dotted_keys"]:
        m = re.search(r"if processed_arg\.startswith\('(-+)'\) and '\.' in processed_arg", text)
        rules["dotted_prefix"] = m.group(1) if m else "--"
    if "'--optimization-level'" in text:
        rules["dash_O"] = "optimization_level"
    elif "-O.mode" in text or "-O.level" in text or "'-O'" in text:
        rules["dash_O"] = "compilation_config"
        m = re.search(r"'(-O\.[a-z_]+)", text)
        rules["dash_O_key"] = m.group(1)[3:] if m else "level"
    m = re.search(r"args\[i \+ 1\] in \{([^}]*)\}", text)
    if m:
        rules["dash_O_values"] = sorted(re.findall(r"'([^']*)'", m.group(1)))
    rules["dash_O_dot_passthrough"] = "arg[2] != '.'" in text
    # 0.12: `-O.key v` is rewritten to another alias (`-cc.key v`), with a warning
    m = re.search(r"arg\.replace\('-O', '(-[\w-]+)', 1\)", text)
    rules["dash_O_dot_alias"] = m.group(1) if m else None
    rules["model_flag_to_positional"] = "model_tag" in text and (
        "'--model'" in text or "^--model" in text)
    if rules["model_flag_to_positional"]:
        rules["model_flag"] = "positional"
    elif "arg == '--model'" in text and "raise ValueError" in text:
        rules["model_flag"] = "error"  # `serve --model X` is a ValueError at parse time
    else:
        rules["model_flag"] = None
    rules["served_model_name_needs_model"] = "served[-_]model[-_]name" in text
    rules["config_file"] = "_pull_args_from_config" in text
    if rules["config_file"] and cls is not None:
        rules["config_extensions"] = _config_extensions(cls)
    rules["help_equals"] = "startswith('--help=')" in text  # --help=KEYWORD searches help
    rules["list_append_plus"] = "endswith('+')" in text
    rules["dotted_human_int"] = "human_readable_int(value_str)" in text
    # dataclass-json values get 1k/80g expanded before pydantic sees them
    arg_utils = index.file_of("vllm.engine.arg_utils")
    rules["json_human_numbers"] = bool(arg_utils) and (
        "_expand_json_human_readable_numbers(val)" in index.src.read(arg_utils))
    # `vllm` main hands any argv containing --omni to vllm-omni (fails when absent)
    main = index.file_of("vllm.entrypoints.cli.main")
    rules["omni_handoff"] = bool(main) and "'--omni' in sys.argv" in ast.unparse(
        index.tree("vllm.entrypoints.cli.main") or ast.Module(body=[], type_ignores=[]))
    return rules


def _config_extensions(cls: ast.ClassDef) -> list[str] | None:
    """The extensions the parser's config-file loader accepts (``if extension not in
    ("yaml", "yml"): raise ValueError``), or None when no such check is found."""
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
                    isinstance(node.test.ops[0], ast.NotIn) and \
                    isinstance(node.test.comparators[0], ast.Tuple | ast.List) and \
                    "extension" in ast.unparse(node.test.left) and \
                    any(isinstance(n, ast.Raise) for b in node.body for n in ast.walk(b)):
                values = [e.value for e in node.test.comparators[0].elts
                          if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                return values or None
    return None
