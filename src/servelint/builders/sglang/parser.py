"""SGLang server options, statically from ``sglang/srt/server_args.py`` (and friends).

Three shapes across releases (recorded as ``parser.shape``):

* ``add_argument``: hand-written ``ServerArgs.add_cli_args`` (``parser.add_argument(...)``).
* ``dataclass``: ``A[T, Arg(...)]`` fields of ``@dataclass ServerArgs`` registered by
  ``add_cli_args_from_dataclass``, plus hand-registered flags in ``add_cli_args``.
* ``namespaces``: the same fields declared in namespace structs
  (``sglang/srt/arg_groups/fields/*.py``) collected into ``ServerArgs``.

The field -> argparse mapping re-states ``add_cli_args_from_dataclass`` of the wheel
(``sglang/srt/arg_groups/arg_utils.py``).
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.sglang.parser_annotations import type_info, unwrap_annotated
from servelint.builders.sglang.parser_kwargs import action_from_kwargs
from servelint.builders.sglang.parser_rules import (
    config_merge_rules,
    config_trigger,
    logging_level_dests,
    value_remaps,
)
from servelint.builders.sglang.parser_values import (
    FIELDS_DIR,
    MISSING,
    SERVER_ARGS,
    SERVER_MOD,
    choice_strings,
    first_help_line,
    help_says_deprecated,
    name_of,
    stringify,
    type_name,
)
from servelint.builders.sglang.serve_routes import serve_routing
from servelint.builders.sglang.type_models import model_of
from servelint.builders.static_eval import UNKNOWN, Evaluator
from servelint.builders.wheel import WheelSource


class ParserExtractor:
    def __init__(self, src: WheelSource):
        self.src = src
        self.ev = Evaluator(src)
        self.actions: list[dict[str, Any]] = []
        self.field_defaults: dict[str, Any] = {}

    # ---- shape ------------------------------------------------------------------
    def shape(self) -> str:
        if any(n.startswith(FIELDS_DIR) for n in self.src.names):
            return "namespaces"
        if "add_cli_args_from_dataclass" in self.src.read(SERVER_ARGS):
            return "dataclass"
        return "add_argument"

    def server_args_class(self) -> ast.ClassDef:
        info = self.ev.module(SERVER_MOD)
        assert info is not None
        return info.classes["ServerArgs"]

    def add_cli_args_fn(self) -> ast.FunctionDef:
        for st in self.server_args_class().body:
            if isinstance(st, ast.FunctionDef) and st.name == "add_cli_args":
                return st
        raise LookupError("ServerArgs.add_cli_args not found")

    # ---- annotated fields ----------------------------------------------------------
    def namespace_classes(self) -> list[tuple[str, ast.ClassDef]]:
        """The classes listed in ``_INPUT_NAMESPACES`` of server_args.py, in order."""
        info = self.ev.module(SERVER_MOD)
        assert info is not None
        stmts = info.assigns.get("_INPUT_NAMESPACES", [])
        if not stmts or not isinstance(stmts[-1].value, ast.List | ast.Tuple):  # type: ignore
            raise LookupError("_INPUT_NAMESPACES not found")
        out = []
        for elt in stmts[-1].value.elts:  # type: ignore[union-attr]
            target = self.ev.eval(elt, SERVER_MOD)
            if isinstance(target, tuple) and target[0] == "class":
                out.append((target[1], target[2]))
        return out

    def positional_order(self) -> list[str]:
        val = self.ev.lookup("sglang.srt.arg_groups.field_order", "POSITIONAL_FIELD_ORDER")
        return list(val) if isinstance(val, list | tuple) else []

    def class_fields(self, module: str, cls: ast.ClassDef) -> list[tuple[str, ast.AnnAssign]]:
        fields: list[tuple[str, ast.AnnAssign]] = []
        for base in cls.bases:  # fields of in-wheel base classes first
            target = self.ev.eval(base, module)
            if isinstance(target, tuple) and target[0] == "class":
                fields.extend(self.class_fields(target[1], target[2]))
        for st in cls.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                fields.append((module, st))
        return fields

    def annotated_fields(self, shape: str) -> list[tuple[str, ast.AnnAssign]]:
        if shape == "dataclass":
            return self.class_fields(SERVER_MOD, self.server_args_class())
        collected: dict[str, tuple[str, ast.AnnAssign]] = {}
        for module, cls in self.namespace_classes():
            for mod, st in self.class_fields(module, cls):
                collected.setdefault(st.target.id, (mod, st))  # type: ignore[union-attr]
        for mod, st in self.class_fields(SERVER_MOD, self.server_args_class()):
            collected[st.target.id] = (mod, st)  # type: ignore[union-attr]
        order = [n for n in self.positional_order() if n in collected]
        order += [n for n in collected if n not in set(order)]
        return [collected[n] for n in order]

    def field_actions(self, shape: str) -> list[dict[str, Any]]:
        out = []
        for module, st in self.annotated_fields(shape):
            name = st.target.id  # type: ignore[union-attr]
            default_node = st.value
            default = self._field_default(default_node, module)
            self.field_defaults[name] = default
            inner, arg, ns = unwrap_annotated(self.ev, st.annotation, module)
            if arg is None:
                continue
            if self._const(arg.get("no_cli"), module) is True:
                continue
            act = self._field_action(name, module, inner, arg, default, st)
            act["group"] = ns or None
            out.append(act)
        return out

    def _field_default(self, node: ast.expr | None, module: str) -> Any:
        if node is None:
            return MISSING
        if isinstance(node, ast.Call) and name_of(node.func) == "field":
            for kw in node.keywords:
                if kw.arg == "default":
                    return self.ev.eval(kw.value, module)
                if kw.arg == "default_factory":
                    if isinstance(kw.value, ast.Lambda):
                        return self.ev.eval(kw.value.body, module)
                    fac = name_of(kw.value)
                    return {"list": [], "dict": {}, "set": set()}.get(fac or "", UNKNOWN)
            return MISSING
        return self.ev.eval(node, module)

    def _const(self, node: ast.expr | None, module: str) -> Any:
        return None if node is None else self.ev.eval(node, module)

    def _field_action(
        self, name: str, module: str, inner: ast.expr, arg: dict, default: Any, st: ast.AnnAssign
    ) -> dict[str, Any]:
        cli_name = self._const(arg.get("cli_name"), module) or "--" + name.replace("_", "-")
        aliases = self._const(arg.get("aliases"), module) or []
        names = [cli_name] + [str(a) for a in aliases] if isinstance(aliases, list) else [cli_name]
        help_text = first_help_line(self._const(arg.get("help"), module))
        base = {
            "dest": name,
            "option_strings": names,
            "help": help_text,
            "source": f"{module.replace('.', '/')}.py:{st.lineno}",
        }
        has_default = default is not MISSING
        if arg.get("action") is not None:
            kwargs = {"action": arg["action"], "help": arg.get("help")}
            extra = arg.get("action_kwargs")
            if isinstance(extra, ast.Dict):
                for k, v in zip(extra.keys, extra.values, strict=True):
                    if isinstance(k, ast.Constant):
                        kwargs[str(k.value)] = v
            act = action_from_kwargs(self.ev, module, kwargs, default if has_default else None)
            act.update(base)
            return act
        info = type_info(self.ev, inner, module)
        choices_node = arg.get("choices")
        arg_choices = self._const(choices_node, module)
        type_parser = name_of(arg["type_parser"]) if arg.get("type_parser") is not None else None
        nargs = self._const(arg.get("nargs"), module)
        act: dict[str, Any] = {
            "kind": "store",
            "nargs": None,
            "choices": None,
            "type": "str",
            "required": False,
        }
        if info["kind"] == "literal":
            vals = info["values"]
            chosen = arg_choices if arg_choices else vals
            first = vals[0] if vals else ""
            act["type"] = (
                type_name(type_parser)
                if type_parser
                else ({int: "int", float: "float"}.get(type(first), "str"))
            )
            act["choices"], unresolved = choice_strings(chosen)
            act["choices_unresolved"] = unresolved or any(v is UNKNOWN for v in vals)
        elif info["kind"] == "list" and type_parser is None:
            act["type"] = info["type"]
            act["nargs"] = nargs or "+"
            if arg_choices:
                act["choices"], act["choices_unresolved"] = choice_strings(arg_choices)
        elif info["kind"] == "bool":
            act.update(kind="store_true", type=None)
        else:
            act["type"] = type_name(type_parser) if type_parser else info.get("type", "str")
            if type_parser and act["type"] in {"other", "human_int", "json"}:
                act["type_name"] = type_parser
            if arg_choices or arg_choices is UNKNOWN:
                act["choices"], act["choices_unresolved"] = choice_strings(arg_choices)
            if nargs:
                act["nargs"] = nargs
            required = self._const(arg.get("required"), module)
            act["required"] = bool(
                (required is True or (required is None and not has_default))
                and any(n.startswith("-") for n in names)
            )
        if arg.get("type_parser") is not None:
            act["value_model"] = model_of(self.ev, module, arg["type_parser"])
        act["default"] = stringify(default) if has_default else None
        act["deprecated"] = help_says_deprecated(help_text)
        act["deprecated_message"] = help_text if act["deprecated"] else ""
        act["deprecated_by"] = "help" if act["deprecated"] else None
        act.update(base)
        return act

    # ---- add_argument calls (parser_kwargs) ------------------------------------------
    def walk_add_cli_args(self, shape: str) -> list[dict[str, Any]]:
        fn = self.add_cli_args_fn()
        local: dict[str, Any] = {}
        out: list[dict[str, Any]] = []
        self._walk(fn.body, local, out, shape, conditional=False)
        return out

    def _walk(
        self, body: list[ast.stmt], local: dict, out: list, shape: str, conditional: bool
    ) -> None:
        for st in body:
            if isinstance(st, ast.If):
                test = self.ev.eval(st.test, SERVER_MOD, local)
                if test is UNKNOWN or isinstance(test, tuple):
                    # unknown at build time: keep both branches (superset of choices)
                    self._walk(st.body, local, out, shape, True)
                    self._walk(st.orelse, local, out, shape, True)
                else:
                    self._walk(st.body if test else st.orelse, local, out, shape, conditional)
                continue
            if (
                isinstance(st, ast.Assign)
                and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name)
            ):
                local[st.targets[0].id] = self.ev.eval(st.value, SERVER_MOD, local)
                continue
            call = st.value if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) else None
            if call is None:
                continue
            fname = name_of(call.func)
            if fname == "add_cli_args_from_dataclass":
                out.extend(self.field_actions(shape))
            elif fname == "add_argument":
                out.append(self._add_argument(call, local, conditional))
            elif (
                fname in {"add", "append", "extend", "update"}
                and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id in local
            ):
                local[call.func.value.id] = self.ev._mutate(
                    local[call.func.value.id], call, SERVER_MOD, local
                )

    def _add_argument(self, call: ast.Call, local: dict, conditional: bool) -> dict[str, Any]:
        names = [self.ev.eval(a, SERVER_MOD, local) for a in call.args]
        names = [n for n in names if isinstance(n, str)]
        kwargs = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        default_node = kwargs.get("default")
        if (
            isinstance(default_node, ast.Call)
            and name_of(default_node.func) == "_declared_default"
            and default_node.args
            and isinstance(default_node.args[0], ast.Constant)
        ):
            kwargs = dict(kwargs)
            declared = self.field_defaults.get(default_node.args[0].value, None)
            kwargs.pop("default")
            act = action_from_kwargs(
                self.ev, SERVER_MOD, kwargs, None if declared is MISSING else declared, local
            )
        else:
            act = action_from_kwargs(self.ev, SERVER_MOD, kwargs, None, local)
        dest_node = kwargs.get("dest")
        dest = self.ev.eval(dest_node, SERVER_MOD, local) if dest_node is not None else None
        if not isinstance(dest, str):
            longs = [n for n in names if n.startswith("--")]
            dest = (longs or names or ["?"])[0].lstrip("-").replace("-", "_")
        act.update(
            dest=dest, option_strings=names, group=None, source=f"{SERVER_ARGS}:{call.lineno}"
        )
        if conditional:
            act["conditional"] = True
        return act

    # ---- whole parser -------------------------------------------------------------------
    def parser_kwargs(self) -> dict[str, Any]:
        info = self.ev.module(SERVER_MOD)
        assert info is not None
        fn = info.functions.get("prepare_server_args")
        prog, allow_abbrev = None, True
        if fn is not None:
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and name_of(node.func) == "ArgumentParser":
                    for kw in node.keywords:
                        if kw.arg == "prog":
                            prog = self.ev.eval(kw.value, SERVER_MOD)
                        if kw.arg == "allow_abbrev":
                            allow_abbrev = bool(self.ev.eval(kw.value, SERVER_MOD))
        return {
            "argparse_prog": prog if isinstance(prog, str) else None,
            "allow_abbrev": allow_abbrev,
            "config_trigger": config_trigger(fn),
            "logging_levels": logging_level_dests(fn),
        }

    def extract(self) -> dict[str, Any]:
        shape = self.shape()
        actions = self.walk_add_cli_args(shape)
        help_action = {
            "dest": "help",
            "option_strings": ["-h", "--help"],
            "kind": "help",
            "nargs": 0,
            "type": None,
            "choices": None,
            "default": None,
            "deprecated": False,
            "deprecated_message": "",
            "help": "show help",
            "group": None,
            "required": False,
            "source": "argparse",
        }
        actions.insert(0, help_action)
        for act in actions:
            if act.get("kind") == "boolean_optional":  # argparse adds --no-X per --X
                neg = ["--no-" + o[2:] for o in act["option_strings"] if o.startswith("--")]
                act["option_strings"] = [
                    x
                    for o in act["option_strings"]
                    for x in ([o, "--no-" + o[2:]] if o.startswith("--") else [o])
                ]
                act["negative"] = neg
            act.setdefault("accepted", list(act["option_strings"]))
            act.setdefault(
                "negative", list(act["option_strings"]) if act.get("kind") == "store_false" else []
            )
            act.setdefault("positional", False)
            act.setdefault("json_dataclass", None)
            act.setdefault("deprecated_error", False)
            act.setdefault("choices_unresolved", False)
        kw = self.parser_kwargs()
        config = any("--config" in a["option_strings"] for a in actions)
        rules = {
            "underscore_to_dash": False,
            "dotted_keys": False,
            "dash_O": None,
            "model_flag_to_positional": False,
            "config_file": config and bool(kw["config_trigger"]),
            "config_trigger": kw["config_trigger"],
            "equals_form": True,
        }
        if kw["logging_levels"]:  # getattr(logging, args.X.upper()) after parse_args
            rules["logging_level"] = kw["logging_levels"]
        if rules["config_file"]:
            rules["config_merge"] = config_merge_rules(self.src)
        serve = "sglang/cli/serve.py"
        serve_text = self.src.read(serve) if self.src.exists(serve) else ""
        # `sglang serve` pre-processing before prepare_server_args (sglang/cli/serve.py)
        rules["serve_cli"] = bool(serve_text)
        rules["serve_positional_model"] = "def _normalize_positional_model_path" in serve_text
        rules["serve_model_type_selector"] = "def _extract_model_type_override" in serve_text
        routing = serve_routing(self.src)
        if routing:
            rules["serve_routing"] = routing
        return {
            "prog": "python -m sglang.launch_server",
            "argparse_prog": kw["argparse_prog"],
            "allow_abbrev": kw["allow_abbrev"],
            "shape": shape,
            "actions": actions,
            "rules": rules,
        }


def extract(src: WheelSource, profile: dict) -> dict:
    extractor = ParserExtractor(src)
    parser = extractor.extract()
    return {
        "parser": parser,
        "value_remaps": value_remaps(extractor.ev, extractor.server_args_class()),
    }
