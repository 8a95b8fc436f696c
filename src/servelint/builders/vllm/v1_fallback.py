"""EngineArgs checks of the V0 fallback in releases that have no V0 engine left.

``EngineArgs._is_v1_supported_oracle`` (vllm/engine/arg_utils.py, 0.8 – 0.11) answers
False for features V1 lacks, each as ``if TEST: _raise_or_fallback(feature_name=…);
return False``: with ``VLLM_USE_V1=1`` set the helper raises NotImplementedError, otherwise
``create_engine_config`` falls back to V0. A release whose serving entrypoint then asserts
``envs.VLLM_USE_V1`` right after ``create_engine_config`` (0.11.0 api_server.py:209, the
V0 engine removed) fails the launch either way, so each such TEST whose terms are the
launch's dests and class defaults (``self.max_num_partial_prefills !=
SchedulerConfig.max_num_partial_prefills``) is one EngineArgs check. Releases without that
assert (V0 still there) get none: their fallback runs. Model and environment tests
(``model_config.is_v1_compatible``, ``envs.VLLM_ATTENTION_BACKEND``) are left out.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.vllm.engine_build import field_defaults
from servelint.builders.vllm.facts_common import find_def, parse
from servelint.builders.wheel import WheelSource

ORACLE = "_is_v1_supported_oracle"
HELPER = "_raise_or_fallback"
SERVER = "vllm/entrypoints/openai/api_server.py"


def checks(src: WheelSource) -> list[dict[str, Any]]:
    """The checks (EngineArgs ``checks`` entries), [] when the release can fall back."""
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    assert_line = _v1_asserted(src)
    if found is None or not isinstance(found[1], ast.ClassDef) or assert_line is None:
        return []
    path, engine_args = found
    oracle = next(
        (m for m in engine_args.body if isinstance(m, ast.FunctionDef) and m.name == ORACLE), None
    )
    if oracle is None:
        return []
    out = []
    for st in oracle.body:
        if isinstance(st, ast.Return) and not _is_false(st.value):
            break  # checks after a `return True` are not reached
        feature = _fallback_feature(st)
        if feature is None:
            continue
        test = _test_text(src, st.test)  # type: ignore[attr-defined]
        if test is None:
            continue
        reads = sorted({n.attr for n in ast.walk(ast.parse(test)) if _self_attr(n)})
        out.append(
            {
                "kind": "raise",
                "message": (
                    f"NotImplementedError: VLLM_USE_V1=1 is not supported with {feature}. "
                    f"(V1 lacks it; without VLLM_USE_V1=1 the engine falls back to V0, "
                    f"which this release no longer has: {SERVER}:{assert_line} asserts "
                    f"envs.VLLM_USE_V1)"
                ),
                "method": ORACLE,
                "reads": reads,
                "source": f"{path}:{st.lineno}",
                "test": test,
            }
        )
    return out


def _v1_asserted(src: WheelSource) -> int | None:
    """Line of ``assert envs.VLLM_USE_V1`` after ``create_engine_config`` in the entrypoint."""
    tree = parse(src, SERVER) if src.exists(SERVER) else None
    if tree is None:
        return None
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        built = False
        for st in fn.body:
            if "create_engine_config" in ast.unparse(st):
                built = True
            elif built and isinstance(st, ast.Assert) and ast.unparse(st.test) == "envs.VLLM_USE_V1":
                return st.lineno
    return None


def _fallback_feature(st: ast.stmt) -> str | None:
    """``if TEST: _raise_or_fallback(feature_name="X", …); return False`` -> "X"."""
    if not isinstance(st, ast.If) or st.orelse or len(st.body) != 2:
        return None
    call, ret = st.body
    if not (isinstance(ret, ast.Return) and _is_false(ret.value)):
        return None
    if not (isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)):
        return None
    if not (isinstance(call.value.func, ast.Name) and call.value.func.id == HELPER):
        return None
    name = next((k.value for k in call.value.keywords if k.arg == "feature_name"), None)
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value
    return None


def _test_text(src: WheelSource, test: ast.expr) -> str | None:
    """The test with ``Cls.field`` defaults as literals; None if it reads anything else."""

    class Defaults(ast.NodeTransformer):
        ok = True

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if _self_attr(node):
                return node
            if isinstance(node.value, ast.Name):
                value = _class_default(src, node.value.id, node.attr)
                if value is not None:
                    return ast.copy_location(ast.Constant(value[0]), node)
            self.ok = False
            return node

        def visit_Name(self, node: ast.Name) -> ast.AST:
            self.ok = self.ok and node.id == "self"
            return node

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.ok = False
            return node

    walker = Defaults()
    new = walker.visit(ast.parse(ast.unparse(test), mode="eval"))
    return ast.unparse(new.body) if walker.ok else None


def _class_default(src: WheelSource, cls: str, attr: str) -> tuple[Any] | None:
    found = find_def(src, cls, "engine/arg_utils" if cls == "EngineArgs" else "vllm/config")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    default = field_defaults(src, found[1], found[0]).get(attr)
    if default is None or "value" not in default:
        return None
    return (default["value"],)


def _self_attr(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _is_false(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value is False
