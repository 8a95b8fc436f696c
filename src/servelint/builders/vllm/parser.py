"""Extract the ``vllm serve`` parser and its JSON config classes from a wheel, statically.

``extract(src, profile)`` returns the ``parser`` and ``configs`` sections of the profile
(docs/profile-format.md).  The registration code is interpreted, not imported
(``vllm_parser_interp``); argv rules of ``FlexibleArgumentParser`` are detected from
its own source (``vllm_parser_rules``).
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.astutil import Definition, ModuleIndex, first_line
from servelint.builders.expressions import Opaque, PartialList
from servelint.builders.vllm.parser_configs import collect_configs
from servelint.builders.vllm.parser_interp import Interpreter
from servelint.builders.vllm.parser_objects import ActionClass, ClassRef, FuncRef, ParserObj
from servelint.builders.vllm.parser_rules import detect_rules
from servelint.builders.vllm.parser_types import TypeFn
from servelint.builders.wheel import WheelSource
from servelint.engines.argparse_emul import FLAG_KINDS

STRING_ACTIONS = {
    "store": "store",
    "store_true": "store_true",
    "store_false": "store_false",
    "store_const": "store_const",
    "append": "append",
    "append_const": "other",
    "count": "count",
    "help": "help",
    "version": "version",
    "extend": "other",
}


def _serve_parser(index: ModuleIndex, interp: Interpreter) -> tuple[ParserObj, str]:
    """Run ``ServeSubcommand.subparser_init`` (or ``make_arg_parser`` as a fallback)."""
    mod = "vllm.entrypoints.cli.serve"
    tree = index.tree(mod)
    if tree is not None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.FunctionDef) and stmt.name == "subparser_init":
                        cls = Definition(mod, node.name, node, "class")
                        fn = FuncRef(
                            Definition(mod, stmt.name, stmt, "function"),
                            ClassRef(cls),
                            ClassRef(cls),
                        )
                        top = ParserObj()
                        result = interp.call_function(fn, [top], {}, 0)
                        if isinstance(result, ParserObj):
                            return result, f"{index.file_of(mod)}:{stmt.lineno}"
    for cand in index.modules():
        if cand.startswith("vllm.entrypoints") and cand.endswith("cli_args"):
            d = index.resolve(cand, "make_arg_parser")
            if d is not None and d.kind == "function":
                parser = ParserObj()
                interp.call_function(FuncRef(d), [parser], {}, 0)
                return parser, f"{index.file_of(cand)}:{d.node.lineno}"  # type: ignore[attr-defined]
    raise RuntimeError("no serve parser registration found")


def _enable_disable(index: ModuleIndex) -> bool:
    """Whether FlexibleArgumentParser swaps BooleanOptionalAction for EnableDisableAction."""
    for mod in ("vllm.utils.argparse_utils", "vllm.utils"):
        d = index.resolve(mod, "FlexibleArgumentParser")
        if d is not None and d.kind == "class":
            text = ast.unparse(d.node)
            return "EnableDisableAction" in text and "register" in text
    return False


def _stringify(value: Any) -> str | None:
    if value is None or isinstance(value, Opaque):
        return None
    if isinstance(value, TypeFn):
        return value.repr
    if isinstance(value, bool | int | float | str):
        return str(value)
    if isinstance(value, (list, tuple, dict)):
        return str(value)
    return None


def _type_class(t: TypeFn | None, kind: str) -> str:
    if t is None:
        return "bool" if kind in FLAG_KINDS else "str"
    base = t.base
    if base.startswith("dataclass-json"):
        return "json_dataclass"
    if base in {"int", "float", "str", "bool"}:
        return base
    if base.startswith("human_readable_int"):
        return "human_int"
    if base in {"json.loads", "union_dict_and_str"}:
        return "json"
    return "other"


def _custom_action(index: ModuleIndex, cls: Definition) -> tuple[str, bool, str]:
    """(kind, deprecated, warning text) of a custom argparse.Action subclass."""
    bases = " ".join(ast.unparse(b) for b in cls.node.bases)  # type: ignore[attr-defined]
    kind = "boolean_optional" if "BooleanOptionalAction" in bases else "other"
    message = ""
    for node in ast.walk(cls.node):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("warn") and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                message = arg.value
            elif isinstance(arg, ast.Name):
                d = index.resolve(cls.module, arg.id)
                if d is not None and isinstance(d.node, ast.Constant):
                    message = str(d.node.value)
                elif d is not None and isinstance(d.node, ast.JoinedStr | ast.BinOp):
                    message = ast.unparse(d.node)
    deprecated = "deprecat" in cls.name.lower() or "deprecat" in message.lower()
    return kind, deprecated, message


def _action_kind(
    index: ModuleIndex, kw: dict[str, Any], enable_disable: bool
) -> tuple[str, str | None, bool, str]:
    """-> (kind, action class name, deprecated, the action's own deprecation warning)."""
    act = kw.get("action")
    deprecated = kw.get("deprecated") is True
    explicit_message = ""
    kind = "store"
    action_class = None
    if act == "BooleanOptionalAction":  # from get_kwargs
        act = ActionClass(act)
    if isinstance(act, str):
        kind = STRING_ACTIONS.get(act, "other")
    elif isinstance(act, ActionClass):
        kind = "boolean_optional" if "BooleanOptional" in act.name else "other"
        action_class = act.name
    elif isinstance(act, ClassRef):
        kind, dep, warning = _custom_action(index, act.d)
        deprecated = deprecated or dep
        if dep and warning:
            explicit_message = warning
        action_class = act.d.name
    if (
        kind == "boolean_optional"
        and enable_disable
        and action_class in (None, "BooleanOptionalAction")
    ):
        action_class = "EnableDisableAction"
    return kind, action_class, deprecated, explicit_message


def _dest(strings: list[str], kw: dict[str, Any], positional: bool) -> str:
    """dest like argparse: explicit, positional name, first long option, first option."""
    if positional:
        return strings[0]
    if isinstance(kw.get("dest"), str):
        return kw["dest"]
    longs = [s for s in strings if s.startswith("--")]
    return (longs or strings or ["?"])[0].lstrip("-").replace("-", "_")


def _spellings(
    strings: list[str], kind: str, action_class: str | None
) -> tuple[list[str], list[str], list[str], list[str]]:
    """-> (accepted, option_strings, negative, hidden): ``--no-X`` and enable/disable forms."""
    accepted = list(strings)
    option_strings = list(strings)
    negative: list[str] = []
    hidden: list[str] = []
    if kind == "boolean_optional":
        neg = ["--no-" + s[2:] for s in strings if s.startswith("--")]
        accepted = strings + neg
        negative = list(neg)
        option_strings = list(accepted)
        if action_class == "EnableDisableAction":
            inverses = []
            for s in strings:
                for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                    if s.startswith(prefix):
                        inverses.append(inverse + s[len(prefix) :])
            if inverses:
                option_strings = strings + inverses
                hidden = neg
            accepted = accepted + inverses
            negative = neg + inverses
    return accepted, option_strings, negative, hidden


def _type_fn(kw: dict[str, Any]) -> TypeFn | None:
    t = kw.get("type")
    tfn = t if isinstance(t, TypeFn) else None
    if isinstance(t, FuncRef):
        tfn = TypeFn(t.d.name)
    elif t is not None and tfn is None:
        tfn = TypeFn("other")
    return tfn


def _choices_of(kw: dict[str, Any]) -> tuple[list[str] | None, bool, dict[str, Any]]:
    """-> (choices as strings, None among them, extra entry flags)."""
    choices = kw.get("choices")
    if not isinstance(choices, (list, tuple)):
        return None, False, {}
    choices_none = False
    vals = []
    for c in choices:
        if c is None:
            choices_none = True
        elif not isinstance(c, Opaque):
            vals.append(str(c))
    if choices_none:  # "None" (and "") convert to None, which the release accepts
        vals.append("None")
    return vals, choices_none, {"choices_open": True} if isinstance(choices, PartialList) else {}


def _build_action(
    index: ModuleIndex,
    rec: dict[str, Any],
    enable_disable: bool,
) -> dict[str, Any]:
    strings: list[str] = rec["strings"]
    kw: dict[str, Any] = rec["kwargs"]
    positional = bool(strings) and not strings[0].startswith("-")
    kind, action_class, deprecated, explicit_message = _action_kind(index, kw, enable_disable)
    accepted, option_strings, negative, hidden = _spellings(strings, kind, action_class)
    nargs = 0 if kind in FLAG_KINDS else kw.get("nargs")
    tfn = _type_fn(kw)
    choices_out, choices_none, extra_flags = _choices_of(kw)
    metavar = kw.get("metavar")
    help_text = kw.get("help")
    if "__opaque_kwargs__" in kw:
        help_text = help_text if isinstance(help_text, str) else ""
    entry: dict[str, Any] = {
        "dest": _dest(strings, kw, positional),
        "option_strings": [] if positional else option_strings,
        "accepted": [] if positional else accepted,
        "negative": negative,
        "hidden": hidden,
        "positional": positional,
        "kind": kind,
        "nargs": nargs,
        "type": _type_class(tfn, kind) if kind not in FLAG_KINDS else "bool",
        "type_repr": tfn.repr if tfn else None,
        "json_dataclass": tfn.dataclass if tfn and tfn.base.startswith("dataclass-json") else None,
        "optional": bool(tfn and tfn.repr.startswith("optional(")),
        "choices": choices_out,
        "choices_none": choices_none,
        "metavar": [str(m) for m in metavar] if isinstance(metavar, (list, tuple)) else None,
        "const": _stringify(kw.get("const")),
        "default": _stringify(kw.get("default")),
        "deprecated": deprecated,
        "deprecated_message": "",
        "help": first_line(help_text) if isinstance(help_text, str) else "",
        "group": rec["group"] or ("positional arguments" if positional else "options"),
        "source": rec["source"],
    }
    if action_class:
        entry["action_class"] = action_class
    entry.update(extra_flags)
    _add_notes(entry, kw, help_text, deprecated, explicit_message)
    sentinels = _type_sentinels(kw.get("type"))
    if sentinels:
        entry["type_sentinels"] = sentinels
    return entry


def _type_sentinels(t: Any) -> dict[str, Any] | None:
    """The words a ``type=`` function maps to another value before the engine sees it, for
    a function of the shape ``return X if val.lower() == "none" else val``
    (``parse_reasoning_parser``, vllm/engine/arg_utils.py): {"none": ""}, compared lower-cased."""
    node = getattr(getattr(t, "d", None), "node", None)
    if not isinstance(node, ast.FunctionDef) or len(node.args.args) != 1:
        return None
    arg = node.args.args[0].arg
    body = [st for st in node.body if not (isinstance(st, ast.Expr)
                                           and isinstance(st.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    e = body[0].value
    if not (isinstance(e, ast.IfExp) and isinstance(e.body, ast.Constant)
            and isinstance(e.orelse, ast.Name) and e.orelse.id == arg):
        return None
    test = e.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and ast.unparse(test.left) == f"{arg}.lower()"):
        return None
    word = test.comparators[0].value
    return {word.lower(): e.body.value} if isinstance(word, str) else None


def _add_notes(
    entry: dict[str, Any],
    kw: dict[str, Any],
    help_text: Any,
    deprecated: bool,
    explicit_message: str,
) -> None:
    """Where the field is declared, from_cli and lambda types, deprecation messages."""
    fld = kw.get("_field")
    if fld is not None and getattr(fld, "path", None):
        entry["field_source"] = f"{fld.path}:{fld.line}"
        entry["field_of"] = fld.owner
    if kw.get("_from_cli"):
        entry["json_from_cli"] = True  # `cls.from_cli(val)` may accept non-JSON shorthands
    lam = kw.get("type")
    if isinstance(lam, TypeFn) and lam.repr == "lambda" and lam.text:
        entry["type_lambda"] = lam.text
    entry["help_mentions_deprecated"] = isinstance(help_text, str) and (
        "deprecat" in help_text.lower()
    )
    if explicit_message:
        entry["deprecated_message"] = first_line(explicit_message)
    elif deprecated and isinstance(help_text, str) and "deprecat" in help_text.lower():
        entry["deprecated_message"] = first_line(help_text)


HELP_ACTION = {
    "dest": "help",
    "option_strings": ["-h", "--help"],
    "accepted": ["-h", "--help"],
    "negative": [],
    "hidden": [],
    "positional": False,
    "kind": "help",
    "nargs": 0,
    "type": "bool",
    "type_repr": None,
    "json_dataclass": None,
    "optional": False,
    "choices": None,
    "choices_none": False,
    "metavar": None,
    "const": None,
    "default": "==SUPPRESS==",
    "deprecated": False,
    "deprecated_message": "",
    "help": "show this help message and exit",
    "group": "options",
    "source": "argparse",
    "help_mentions_deprecated": False,
}


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    index = ModuleIndex(src)
    interp = Interpreter(index)
    parser, origin = _serve_parser(index, interp)
    enable_disable = _enable_disable(index)
    actions = [dict(HELP_ACTION)]
    for rec in parser.actions:
        actions.append(_build_action(index, rec, enable_disable))
    rules = detect_rules(index)
    section: dict[str, Any] = {
        "prog": "vllm serve",
        "allow_abbrev": parser.allow_abbrev,
        "actions": actions,
        "rules": rules,
        "origin": origin,
    }
    if interp.notes:
        section["notes"] = sorted(set(interp.notes))[:50]
    configs = collect_configs(index, interp, actions)
    return {"parser": section, "configs": configs}
