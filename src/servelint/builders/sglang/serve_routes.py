"""How ``sglang serve`` picks its parser, from ``sglang/cli/serve.py`` and ``cli/utils.py``.

A release whose ``serve`` calls ``get_is_diffusion_model(model_path)`` sends diffusion
models (a ``model_index.json`` naming ``_diffusers_version``) to the multimodal-generation
server's parser and everything else to ``prepare_server_args``. Recorded: that it does,
the file and key the detection reads, the ``--model-type`` backends a release registers,
the diffusion parser's option strings and whether it passes unknown flags on
(``parse_known_args``), each with its source line, and (``diffusion_accepts``) every flag the
diffusion side may take and where it rejects the rest.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.wheel import WheelSource

SERVE = "sglang/cli/serve.py"
UTILS = "sglang/cli/utils.py"
DIFFUSION_ARGS = (
    "sglang/multimodal_gen/runtime/server_args/server_args.py",
    "sglang/multimodal_gen/runtime/server_args.py",
)
DIFFUSION_SERVE = "sglang/multimodal_gen/runtime/entrypoints/cli/serve.py"


def _calls_named(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
    ]


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None
    )


def _detection(src: WheelSource) -> dict[str, Any] | None:
    if not src.exists(UTILS):
        return None
    tree = src.parse(UTILS)
    fn = _function(tree, "is_diffusers_model_path") or _function(tree, "_is_diffusers_model_dir")
    if fn is None:
        return None
    consts = [
        n.value for n in ast.walk(fn) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    files = [c for c in consts if c.endswith(".json")]
    keys = [c for c in consts if c.startswith("_") and not c.endswith(".json")]
    return {"files": files, "key": keys[0] if keys else None, "source": f"{UTILS}:{fn.lineno}"}


def _model_types(tree: ast.Module) -> list[str]:
    fn = _function(tree, "_create_backend_registry")
    if fn is None:
        return []
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            return [k.value for k in node.keys if isinstance(k, ast.Constant)]
    return []


def _diffusion_options(src: WheelSource) -> tuple[list[str], str | None]:
    found: set[str] = set()
    where = None
    for path in (*DIFFUSION_ARGS, DIFFUSION_SERVE):
        if not src.exists(path):
            continue
        where = where or path
        for call in _calls_named(src.parse(path), "add_argument"):
            found |= {
                a.value
                for a in call.args
                if isinstance(a, ast.Constant)
                and isinstance(a.value, str)
                and a.value.startswith("-")
            }
    return sorted(found), where


def model_path_flags(src: WheelSource) -> dict[str, Any] | None:
    """How ``get_model_path`` (cli/utils.py) finds the model before any parser runs: the
    exact flags it compares and the ``FLAG=`` prefixes; it raises when none is there."""
    if not src.exists(UTILS):
        return None
    tree = src.parse(UTILS)
    fns = [
        f
        for f in (_function(tree, "try_get_model_path"), _function(tree, "get_model_path"))
        if f is not None
    ]
    raises = _function(tree, "get_model_path")
    if not fns or raises is None or not any(isinstance(n, ast.Raise) for n in ast.walk(raises)):
        return None
    exact: set[str] = set()
    prefixes: set[str] = set()
    for fn in fns:
        for node in ast.walk(fn):
            if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Eq | ast.In):
                for comp in node.comparators:
                    elts = comp.elts if isinstance(comp, ast.Tuple | ast.List) else [comp]
                    exact |= {
                        e.value
                        for e in elts
                        if isinstance(e, ast.Constant)
                        and isinstance(e.value, str)
                        and e.value.startswith("--")
                    }
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "startswith"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                prefixes.add(node.args[0].value)
    if not exact:
        return None
    return {
        "exact": sorted(exact),
        "prefixes": sorted(prefixes),
        "source": f"{UTILS}:{raises.lineno}",
    }


# where the multimodal-generation server's flags are declared (server args, the pipeline,
# model and quantization configs a pipeline adds); not its benchmarks, apps or tests
DIFFUSION_DIRS = ("sglang/multimodal_gen/runtime/", "sglang/multimodal_gen/configs/")


def _flag_tail(node: ast.JoinedStr) -> str | None:
    """``f"--{prefix}.flow-shift"`` -> ".flow-shift": the constant end of a built flag."""
    last = node.values[-1] if node.values else None
    if isinstance(last, ast.Constant) and isinstance(last.value, str) and last.value:
        return last.value
    return None


def diffusion_accepts(src: WheelSource) -> dict[str, Any]:
    """Every flag the multimodal-generation server may accept, a superset read from the
    wheel: option strings of every ``add_argument`` call under :data:`DIFFUSION_DIRS`
    (pipeline-specific ones too: which pipeline runs depends on the model), the constant
    tails of flags built with an f-string, the prefixes and suffixes of the dynamic
    per-component flags ``from_cli_args`` takes out of the unknown arguments, and the line
    that rejects what is left (``SystemExit('... unrecognized arguments ...')``), if any."""
    options: set[str] = set()
    tails: set[str] = set()
    prefixes: set[str] = set()
    suffixes: set[str] = set()
    rejects = None
    for path in sorted(n for n in src.names if n.startswith(DIFFUSION_DIRS) and n.endswith(".py")):
        tree = src.parse(path)
        for call in _calls_named(tree, "add_argument"):
            for arg in call.args:
                if isinstance(arg, ast.Constant) and str(arg.value).startswith("-"):
                    options.add(arg.value)
                elif isinstance(arg, ast.JoinedStr) and _flag_tail(arg):
                    tails.add(_flag_tail(arg))
        for call in _calls_named(tree, "_extract_dynamic_component_map"):
            for kw in call.keywords:
                for node in ast.walk(kw.value):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str):
                        (suffixes if kw.arg == "alias_suffix" else prefixes).add(node.value)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("_extract_component"):
                # every "--…" constant of the function (its prefix tuples), and what it
                # compares with endswith
                for node in ast.walk(fn):
                    if isinstance(node, ast.Constant) and str(node.value).startswith("--"):
                        prefixes.add(node.value)
                for call in _calls_named(fn, "endswith"):
                    suffixes |= {
                        a.value for a in call.args if isinstance(a, ast.Constant)
                        and isinstance(a.value, str) and a.value.startswith("-")
                    }
        for node in ast.walk(tree):
            if (
                rejects is None
                and isinstance(node, ast.Raise)
                and "SystemExit" in ast.unparse(node.exc or node)
                and "unrecognized arguments" in ast.unparse(node.exc or node)
            ):
                rejects = f"{path}:{node.lineno}"
    return {
        "options": sorted(options),
        "tails": sorted(tails),
        # a per-component namespace ("--component-paths."), not a bare "--" test
        "prefixes": sorted(p for p in prefixes if p.startswith("--") and p.endswith(".")),
        "suffixes": sorted(suffixes),
        "rejects_unknown": rejects,
    }


def serve_routing(src: WheelSource) -> dict[str, Any] | None:
    if not src.exists(SERVE):
        return None
    tree = src.parse(SERVE)
    detect = _calls_named(tree, "get_is_diffusion_model")
    if not detect:
        return None
    options, where = _diffusion_options(src)
    return {
        "by_model": True,
        "source": f"{SERVE}:{detect[0].lineno}",
        "detection": _detection(src),
        "model_types": _model_types(tree),
        "diffusion_parser": where,
        "diffusion_options": options,
        "diffusion_passes_unknown": bool(_calls_named(tree, "parse_known_args")),
        "diffusion_accepts": diffusion_accepts(src),
        "model_path": model_path_flags(src) if _calls_named(tree, "get_model_path") else None,
    }
