"""One argparse action from the keyword AST nodes of an ``add_argument`` call (or of a
field's ``Arg(action=..., action_kwargs=...)``), evaluated statically in the wheel."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from servelint.builders.sglang.enum_choices import comprehension_choices
from servelint.builders.sglang.parser_values import (
    STD_ACTIONS,
    choice_strings,
    first_help_line,
    help_says_deprecated,
    name_of,
    stringify,
    type_name,
)
from servelint.builders.sglang.type_models import action_model, model_of
from servelint.builders.static_eval import UNKNOWN, Evaluator

# what a value of ``add_argument(key=...)`` evaluates to (None when not given)
Value = Callable[[str], Any]


def action_from_kwargs(
    ev: Evaluator,
    module: str,
    kwargs: dict[str, Any],
    default: Any,
    local: dict | None = None,
) -> dict[str, Any]:
    """One argparse action from ``add_argument`` keyword AST nodes."""
    local = local or {}

    def val(key: str) -> Any:
        node = kwargs.get(key)
        if node is None:
            return None
        if isinstance(node, ast.expr):
            return ev.eval(node, module, local)
        return node

    action_name = _action_name(kwargs.get("action"))
    help_text = first_help_line(val("help"))
    nargs = val("nargs")
    act: dict[str, Any] = {
        "action_class": None,
        "nargs": nargs if nargs is not UNKNOWN else None,
        "type": None,
        "required": val("required") is True,
    }
    _set_kind(ev, module, action_name, kwargs, act)
    deprecated, message, error, by = _action_deprecation(action_name, kwargs, val, help_text)
    _set_value_type(ev, module, kwargs.get("type"), act)
    if act["kind"] in {"store_true", "store_false"}:
        act["nargs"] = None
    act["choices"], act["choices_unresolved"] = _choices(ev, module, kwargs, val)
    suppressed = name_of(kwargs.get("default")) == "SUPPRESS"  # type: ignore[arg-type]
    if "default" in kwargs and not suppressed:
        default = val("default")
    # default_suppressed: argparse.SUPPRESS, the dest is absent unless the flag is given
    act["default"] = None if suppressed else stringify(default)
    act["default_suppressed"] = suppressed
    if not deprecated and help_says_deprecated(help_text):
        deprecated, message, by = True, help_text, "help"
    # deprecated_by: "action" = a Deprecated*Action that logs (or errors, deprecated_error);
    # "help" = only the help text says so (no runtime message)
    act.update(
        deprecated=deprecated,
        deprecated_message=message,
        deprecated_error=error,
        deprecated_by=by,
        help=help_text,
    )
    return act


def _action_name(node: Any) -> str | None:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.expr):
        return name_of(node)
    return None


def _set_kind(
    ev: Evaluator, module: str, action_name: str | None, kwargs: dict[str, Any], act: dict
) -> None:
    """``kind`` (and for a custom action class, ``action_class`` and its ``nargs``)."""
    if action_name is None or action_name in STD_ACTIONS:
        kind = action_name or "store"
        act["kind"] = {"append_const": "append", "extend": "append"}.get(kind, kind)
        return
    if action_name == "BooleanOptionalAction":
        act["kind"] = "boolean_optional"
        return
    act["action_class"] = action_name
    cls_nargs = action_class_nargs(ev, module, action_name)
    if "nargs" not in kwargs:
        act["nargs"] = cls_nargs
    act["kind"] = (
        "store_const"
        if act["nargs"] == 0
        else ("store" if action_name.startswith("Deprecated") else "other")
    )


def _action_deprecation(
    action_name: str | None, kwargs: dict[str, Any], val: Value, help_text: str
) -> tuple[bool, str, bool, str | None]:
    """(deprecated, message, errors, by) for a ``Deprecated*Action`` class."""
    if action_name is None or action_name in STD_ACTIONS:
        return False, "", False, None
    if not action_name.startswith("Deprecated"):
        return False, "", False, None
    err = val("error_message")
    new_flag = val("new_flag")
    if "error_message" in kwargs and err is not None:
        return True, err if isinstance(err, str) else help_text, True, "action"
    if isinstance(new_flag, str):
        return True, f"Use '{new_flag}' instead.", False, "action"
    return True, help_text, False, "action"


def _set_value_type(ev: Evaluator, module: str, type_node: Any, act: dict) -> None:
    """``type`` (and ``type_name`` / ``value_model`` where the values have a model)."""
    if act["kind"] in {"store", "append", "other"}:
        act["type"] = type_name(name_of(type_node)) if isinstance(type_node, ast.expr) else "str"
        if isinstance(type_node, ast.expr) and act["type"] in {"other", "human_int", "json"}:
            act["type_name"] = name_of(type_node)
            act["value_model"] = model_of(ev, module, type_node)
    if act["action_class"]:
        act["value_model"] = action_model(ev, module, act["action_class"])


def _choices(ev: Evaluator, module: str, kwargs: dict[str, Any], val: Value) -> tuple[Any, bool]:
    """(choices, unresolved) of ``choices=``."""
    choices, unresolved = choice_strings(val("choices"))
    if unresolved:  # [m.name.lower() for m in _modes()]: an enum's members
        computed = comprehension_choices(ev, module, kwargs.get("choices"))
        if computed is not None:
            return computed, False
    return choices, unresolved


def action_class_nargs(ev: Evaluator, module: str, name: str) -> Any:
    """The ``nargs`` default of a custom action class's ``__init__``."""
    target = ev.lookup(module, name)
    if not (isinstance(target, tuple) and target[0] == "class"):
        return None
    for st in target[2].body:
        if isinstance(st, ast.FunctionDef) and st.name == "__init__":
            args = st.args
            pos = args.args[len(args.args) - len(args.defaults) :]
            for a, d in zip(pos, args.defaults, strict=True):
                if a.arg == "nargs":
                    return ev.eval(d, target[1])
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                if a.arg == "nargs" and d is not None:
                    return ev.eval(d, target[1])
    return None
